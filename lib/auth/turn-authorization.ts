import "server-only";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

// A turn event names an owner and a thread; whoever can send events (anyone
// who reaches an Inngest dev server, or holds the event key) could name
// someone else's. So the app signs what it sends with the session secret, and
// the function runs only events that carry this app's signature over exactly
// their owner, thread, message, client history, the message they replace and
// the model that answers (another would spend someone else's money). A
// compaction event is signed likewise over its owner and thread: a forged one
// would otherwise make the app spend a summary call on any thread it names.

export interface TurnClaims {
  turnId: string;
  owner: string;
  threadId?: string;
  message: { id: string; content: string; files?: { fileId: string }[] };
  clientHistory?: unknown[];
  historyPolicy?: { policy?: string; length?: number };
  replaces?: string;
  model?: string;
  temporary?: boolean;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("base64url");

function mac(claims: TurnClaims, secret: string): Buffer {
  const fields = [
    "threadline-turn-v2",
    claims.turnId,
    claims.owner,
    claims.threadId ?? null,
    claims.message.id,
    sha256(claims.message.content),
    sha256(JSON.stringify(claims.clientHistory ?? null)),
    claims.historyPolicy?.policy ?? null,
    claims.historyPolicy?.length ?? null,
    claims.replaces ?? null,
    // Only when named: an event signed before models were picked still verifies.
    ...(claims.model !== undefined ? [claims.model] : []),
    // The files, each found the owner's when the event was sent; only when there are any, likewise.
    ...(claims.message.files?.length ? [claims.message.files.map((file) => file.fileId)] : []),
    // A temporary chat's, likewise: a run of its event with the flag dropped would learn from it.
    ...(claims.temporary ? ["temporary"] : []),
  ];
  return createHmac("sha256", secret).update(JSON.stringify(fields)).digest();
}

export function authorizeTurn(claims: TurnClaims, secret: string): string {
  return mac(claims, secret).toString("base64url");
}

export function isAuthorizedTurn(claims: TurnClaims, authorization: unknown, secret: string): boolean {
  return matches(authorization, mac(claims, secret));
}

/** What a compaction event names: the thread, and its owner. */
export interface CompactionClaims {
  owner: string;
  threadId: string;
}

// Its own label: a turn's signature never passes for a compaction's, nor the other way.
const compactionMac = (claims: CompactionClaims, secret: string) =>
  createHmac("sha256", secret).update(JSON.stringify(["threadline-compact-v1", claims.owner, claims.threadId])).digest();

export function authorizeCompaction(claims: CompactionClaims, secret: string): string {
  return compactionMac(claims, secret).toString("base64url");
}

export function isAuthorizedCompaction(claims: CompactionClaims, authorization: unknown, secret: string): boolean {
  return matches(authorization, compactionMac(claims, secret));
}

/** What a memory lesson event names: the reply to learn from, its thread and their owner. */
export interface LessonClaims {
  owner: string;
  threadId: string;
  replyId: string;
}

const lessonMac = (claims: LessonClaims, secret: string) =>
  createHmac("sha256", secret).update(JSON.stringify(["threadline-lesson-v1", claims.owner, claims.threadId, claims.replyId])).digest();

/** A forged lesson event would spend a memory call on any reply it names, and write memories for its owner. */
export function authorizeLesson(claims: LessonClaims, secret: string): string {
  return lessonMac(claims, secret).toString("base64url");
}

export function isAuthorizedLesson(claims: LessonClaims, authorization: unknown, secret: string): boolean {
  return matches(authorization, lessonMac(claims, secret));
}

function matches(authorization: unknown, expected: Buffer): boolean {
  if (typeof authorization !== "string") return false;
  const given = Buffer.from(authorization, "base64url");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

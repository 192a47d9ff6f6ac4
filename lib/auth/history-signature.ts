import "server-only";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import stringify from "safe-stable-stringify";
import { canonicalParts } from "@threadline/history/codec";
import type { ThreadMessage } from "@threadline/history/parts";
import type { SessionSecret } from "./secret";

// The hybrid pattern lets the client send its copy of the thread so the server
// need not read it. The copy must be one the server produced: every message the
// server stores or serves carries an HMAC (session secret) over the owner, the
// thread, the message's place in the thread (the seq of its first stored part),
// its id, role, a digest of all its parts, and its parent (the message it
// follows on its path). Each message of a copy must follow the one before it:
// its signed parent is that message. A thread's versions leave gaps in the
// seqs of a path, so it is the parents, not the seqs, that show nothing was
// dropped. (A store that keeps no parents signs none; its messages must fit
// end to start instead, one seq per part.) A client can neither invent a
// message, rewrite one, reorder or drop any inside its copy, splice versions
// together, nor carry a signature to another thread or identity; and because
// no message's signature depends on the ones before it, a copy may be just the
// recent part of a thread (the window its history policy reads), and the server
// signs a new message without reading the thread. History that does not verify
// is not used: the server reads the database instead.

/** A message the server signed, where it sits in the thread. */
export interface Positioned {
  /** The seq of the message's first stored part. */
  seq: number;
  /** The message it follows (null: it starts the thread); absent where the store keeps no parents. */
  parentId?: string | null;
}

// Over the parts in canonical order (a call then its result), serialized with
// sorted keys: the client's copy comes back through the UI's shapes, which
// keep neither the interleaving of calls and results nor the order of keys.
const digest = (message: ThreadMessage) =>
  createHash("sha256").update(stringify(canonicalParts(message.parts))).digest("base64url");

export function signMessage(secret: string, owner: string, threadId: string, message: ThreadMessage & Positioned): string {
  // false, not null, for a store without parents: a first message (null) is not one whose parent is unknown.
  const parent = message.parentId === undefined ? false : message.parentId;
  const fields = ["threadline-history-v4", owner, threadId, message.seq, message.id, message.role, digest(message), parent];
  return createHmac("sha256", secret).update(JSON.stringify(fields)).digest("base64url");
}

/** The seq right after a message: each of its parts took one. */
export const seqAfter = (message: ThreadMessage & Positioned) => message.seq + canonicalParts(message.parts).length;

/** Whether `message` comes right after `before` on a path: its parent, or (without parents) the next seq. */
export function follows(message: ThreadMessage & Positioned, before: ThreadMessage & Positioned): boolean {
  return message.parentId === undefined ? seqAfter(before) === message.seq : message.parentId === before.id;
}

/**
 * True when every message carries the signature the server gave it and each
 * follows the one before it: an unbroken run of one path of the thread as the
 * server stored it.
 */
export function isSignedRun(
  secret: string,
  owner: string,
  threadId: string,
  messages: (ThreadMessage & { seq?: number; parentId?: string | null; signature?: string })[],
): boolean {
  return messages.every((message, i) => {
    if (typeof message.signature !== "string" || typeof message.seq !== "number") return false;
    if (i > 0 && !follows(message as ThreadMessage & Positioned, messages[i - 1] as ThreadMessage & Positioned)) return false;
    const given = Buffer.from(message.signature);
    const wanted = Buffer.from(signMessage(secret, owner, threadId, message as ThreadMessage & Positioned));
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  });
}

/** Signs one owner's messages: what a turn runner needs, without the secret itself. */
export type HistorySigner = (threadId: string, message: ThreadMessage & Positioned) => string;

export function historySigner(secret: string, owner: string): HistorySigner {
  return (threadId, message) => signMessage(secret, owner, threadId, message);
}

/**
 * The client's copy of a thread, if the server can trust it: a thread id and
 * an unbroken run of messages the server signed. Otherwise undefined, and the
 * turn reads the database (a new thread has nothing to read). Whether the run
 * reaches back far enough for the history policy is the turn's question.
 */
export async function trustedClientHistory(
  secret: SessionSecret,
  owner: string,
  threadId: string | undefined,
  history: (ThreadMessage & { seq?: number; parentId?: string | null; signature?: string })[] | undefined,
): Promise<(ThreadMessage & Positioned)[] | undefined> {
  if (!history || !threadId) return undefined;
  if (!isSignedRun(await secret(), owner, threadId, history)) return undefined;
  return history.map(({ id, role, parts, seq, parentId }) => ({ id, role, parts, seq: seq!, ...(parentId !== undefined ? { parentId } : {}) }));
}

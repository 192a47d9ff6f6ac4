import "server-only";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import stringify from "safe-stable-stringify";
import { canonicalParts } from "@/lib/history/codec";
import type { ThreadMessage } from "@/lib/protocol/parts";
import { getSessionSecret } from "./secret";

// The hybrid pattern lets the client send its copy of the thread so the server
// need not read it. The copy must be one the server produced: every message the
// server stores or serves carries an HMAC (session secret) over the owner, the
// thread, the message (id, role, a digest of all its parts) and the previous message's
// signature. The chain fixes the order and leaves nothing out but the newest
// messages, so a client can neither invent a turn, rewrite one, reorder them,
// nor carry a signature to another thread or identity. History that does not
// verify is not used: the server reads the database instead.

/** The "previous signature" of a thread's first message. */
export const CHAIN_START = "";

// Over the parts in canonical order (a call then its result), serialized with
// sorted keys: the client's copy comes back through the UI's shapes, which
// keep neither the interleaving of calls and results nor the order of keys.
const digest = (message: ThreadMessage) =>
  createHash("sha256").update(stringify(canonicalParts(message.parts))).digest("base64url");

export function signNext(secret: string, owner: string, threadId: string, previous: string, message: ThreadMessage): string {
  const fields = ["threadline-history-v2", owner, threadId, previous, message.id, message.role, digest(message)];
  return createHmac("sha256", secret).update(JSON.stringify(fields)).digest("base64url");
}

/** The signatures of a thread's messages, first to last. */
export function signChain(secret: string, owner: string, threadId: string, messages: ThreadMessage[]): string[] {
  const signatures: string[] = [];
  let previous = CHAIN_START;
  for (const message of messages) {
    previous = signNext(secret, owner, threadId, previous, message);
    signatures.push(previous);
  }
  return signatures;
}

/** True when every message carries the signature the chain gives it from the thread's first message on. */
export function isSignedChain(
  secret: string,
  owner: string,
  threadId: string,
  messages: (ThreadMessage & { signature?: string })[],
): boolean {
  const expected = signChain(secret, owner, threadId, messages);
  return messages.every((message, i) => {
    if (typeof message.signature !== "string") return false;
    const given = Buffer.from(message.signature);
    const wanted = Buffer.from(expected[i]);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  });
}

/** Signs one owner's threads: what a turn runner needs, without the secret itself. */
export interface HistorySigner {
  chain(threadId: string, messages: ThreadMessage[]): string[];
  next(threadId: string, previous: string, message: ThreadMessage): string;
}

export function historySigner(secret: string, owner: string): HistorySigner {
  return {
    chain: (threadId, messages) => signChain(secret, owner, threadId, messages),
    next: (threadId, previous, message) => signNext(secret, owner, threadId, previous, message),
  };
}

/**
 * The client's copy of a thread, if the server can trust it: a thread id and a
 * complete signed chain. Otherwise undefined, and the turn reads the database
 * (a new thread has nothing to read).
 */
export async function trustedClientHistory(
  owner: string,
  threadId: string | undefined,
  history: (ThreadMessage & { signature?: string })[] | undefined,
): Promise<ThreadMessage[] | undefined> {
  if (!history || !threadId) return undefined;
  if (!isSignedChain(await getSessionSecret(), owner, threadId, history)) return undefined;
  return history.map(({ id, role, parts }) => ({ id, role, parts }));
}

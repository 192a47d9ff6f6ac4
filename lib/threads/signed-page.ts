import "server-only";
import { signMessage } from "@/lib/auth/history-signature";
import type { SessionSecret } from "@/lib/auth/secret";
import type { HistoryMessage } from "@/lib/protocol/threads";
import type { ThreadRepository } from "./repository";

/**
 * A page of a thread: its newest `limit` messages before `before` (of the
 * whole thread when unset), oldest first, each with the server's signature for
 * a client to send back; 404 when the thread is not the owner's.
 */
export async function signedPage(
  threads: ThreadRepository,
  secret: SessionSecret,
  owner: string,
  threadId: string,
  options: { before?: number; limit: number },
): Promise<{ messages: HistoryMessage[]; olderBefore: number | null }> {
  const [page, key] = await Promise.all([threads.page(owner, threadId, options), secret()]);
  return { ...page, messages: page.messages.map((message) => ({ ...message, signature: signMessage(key, owner, threadId, message) })) };
}

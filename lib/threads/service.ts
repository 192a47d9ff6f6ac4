import "server-only";
import { getPool } from "@/lib/db/pool";
import { DeviceLinks } from "@/lib/auth/device-links";
import { signMessage } from "@/lib/auth/history-signature";
import { getSessionSecret } from "@/lib/auth/secret";
import { PostgresHistoryAdapter } from "@/lib/history/postgres";
import type { HistoryMessage } from "@/lib/history/types";
import { ThreadRepository } from "./repository";

// The app's instances, bound to the process's one pool.
let repository: ThreadRepository | undefined;
let adapter: PostgresHistoryAdapter | undefined;
let links: DeviceLinks | undefined;

export function threads(): ThreadRepository {
  return (repository ??= new ThreadRepository(getPool()));
}

export function historyAdapter(): PostgresHistoryAdapter {
  return (adapter ??= new PostgresHistoryAdapter(getPool()));
}

export function deviceLinks(): DeviceLinks {
  return (links ??= new DeviceLinks(getPool()));
}

/**
 * A page of a thread: its newest `limit` messages before `before` (of the
 * whole thread when unset), oldest first, each with the server's signature for
 * a client to send back; 404 when the thread is not the owner's.
 */
export async function signedPage(
  owner: string,
  threadId: string,
  options: { before?: number; limit: number },
): Promise<{ messages: HistoryMessage[]; olderBefore: number | null }> {
  const [page, secret] = await Promise.all([threads().page(owner, threadId, options), getSessionSecret()]);
  return { ...page, messages: page.messages.map((message) => ({ ...message, signature: signMessage(secret, owner, threadId, message) })) };
}

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

/** A thread's history with the server's signature on every message, for a client to send back. */
export async function signedHistory(owner: string, threadId: string): Promise<HistoryMessage[]> {
  const [messages, secret] = await Promise.all([threads().messages(owner, threadId), getSessionSecret()]);
  return messages.map((message) => ({ ...message, signature: signMessage(secret, owner, threadId, message) }));
}

import "server-only";
import { getPool } from "@/lib/db/pool";
import { PostgresHistoryAdapter } from "@/lib/history/postgres";
import { ThreadRepository } from "./repository";

// The app's instances, bound to the process's one pool.
let repository: ThreadRepository | undefined;
let adapter: PostgresHistoryAdapter | undefined;

export function threads(): ThreadRepository {
  return (repository ??= new ThreadRepository(getPool()));
}

export function historyAdapter(): PostgresHistoryAdapter {
  return (adapter ??= new PostgresHistoryAdapter(getPool()));
}

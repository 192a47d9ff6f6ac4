import type pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { ThreadRepository } from "@/lib/threads/repository";
import { WINGS } from "@/lib/wings";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { migrate } from "@threadline/history/migrate";
import { testPool } from "./db";

/** A database a suite runs on, opened in its beforeAll and closed in its afterAll. */
export interface DatabaseTarget {
  name: string;
  open: () => Promise<{ pool: pg.Pool; close: () => Promise<void> }>;
}

/**
 * Code that must behave the same on a Postgres server and on the embedded one
 * runs on the test database and, when that is a server, once more on an
 * embedded Postgres of its own (migrated the way the app migrates it).
 */
export function databaseTargets(): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [
    {
      name: inject("embeddedDatabase") ? "embedded Postgres (PGlite)" : "Postgres server",
      open: async () => {
        const pool = testPool();
        return { pool, close: () => pool.end() };
      },
    },
  ];
  if (!inject("embeddedDatabase")) {
    targets.push({
      name: "embedded Postgres (PGlite)",
      open: async () => {
        const embedded = await startEmbeddedPostgres();
        await migrate(embedded.url);
        const { default: pg } = await import("pg");
        // The embedded Postgres runs one backend: one connection keeps access serialized.
        const pool = new pg.Pool({ connectionString: embedded.url, max: 1 });
        return {
          pool,
          close: async () => {
            await pool.end();
            await embedded.stop();
          },
        };
      },
    });
  }
  return targets;
}

/**
 * The target's database for a describe block: opened before its tests and
 * closed after them, with the history adapter and the thread repository on it.
 */
export function onDatabase(target: DatabaseTarget): { readonly pool: pg.Pool; readonly adapter: PostgresHistoryAdapter; readonly repo: ThreadRepository } {
  let opened: { pool: pg.Pool; close: () => Promise<void>; adapter: PostgresHistoryAdapter; repo: ThreadRepository } | undefined;
  beforeAll(async () => {
    const { pool, close } = await target.open();
    opened = { pool, close, adapter: new PostgresHistoryAdapter(pool), repo: new ThreadRepository(pool, WINGS) };
  });
  afterAll(() => opened?.close());
  const open = () => {
    if (!opened) throw new Error("onDatabase: the database opens in the block's beforeAll");
    return opened;
  };
  return {
    get pool() {
      return open().pool;
    },
    get adapter() {
      return open().adapter;
    },
    get repo() {
      return open().repo;
    },
  };
}

import { readdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { runner } from "node-pg-migrate";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { migrate as migrateAll } from "@threadline/history/migrate";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";

// Threads written before versions existed read as they did: the migration
// makes each one a straight active path, every message following the one
// before it by seq (all its parts alike). Run on an embedded Postgres of its
// own, migrated up to the migration before, given rows, then migrated on.
const MIGRATIONS_DIR = path.join(process.cwd(), "packages", "history", "db", "migrations");
const VERSIONS = "1733529600000_versions.sql";
const THREAD = "00000000-0000-4000-8000-000000000001";
const OTHER = "00000000-0000-4000-8000-000000000002";

let embedded: { url: string; stop: () => Promise<void> };
let pool: pg.Pool;

const migrate = (count: number) =>
  runner({ databaseUrl: embedded.url, dir: MIGRATIONS_DIR, direction: "up", migrationsTable: "pgmigrations", count, checkOrder: true, log: () => {} });

beforeAll(async () => {
  embedded = await startEmbeddedPostgres();
  pool = new pg.Pool({ connectionString: embedded.url, max: 1 });
});
afterAll(async () => {
  await pool.end();
  await embedded.stop();
});

it("makes every thread stored before it one straight active path", async () => {
  const before = readdirSync(MIGRATIONS_DIR)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .indexOf(VERSIONS);
  expect(before).toBeGreaterThan(0);
  await migrate(before);
  await pool.query("INSERT INTO threads (id, owner, next_seq, message_count, summary_seq) VALUES ($1, 'o', 6, 3, 4), ($2, 'o', 2, 1, NULL)", [THREAD, OTHER]);
  await pool.query(
    `INSERT INTO messages (thread_id, seq, message_id, part_index, kind, content) VALUES
       ($1, 1, 'u1', 0, 'user', 'hi'),
       ($1, 2, 'a1', 0, 'reasoning', 'thinking'),
       ($1, 3, 'a1', 1, 'assistant', 'hello'),
       ($1, 4, 's1', 0, 'system_event', 'they said hi'),
       ($1, 5, 'u2', 0, 'user', 'again'),
       ($2, 1, 'v1', 0, 'user', 'elsewhere')`,
    [THREAD, OTHER],
  );
  await migrateAll(embedded.url); // the rest, and the database functions

  const { rows } = await pool.query(
    "SELECT thread_id, seq::int, message_id, parent_message_id, chosen, active FROM messages ORDER BY thread_id, seq",
  );
  const row = (thread: string, seq: number, message_id: string, parent_message_id: string | null) =>
    ({ thread_id: thread, seq, message_id, parent_message_id, chosen: true, active: true });
  expect(rows).toEqual([
    row(THREAD, 1, "u1", null),
    row(THREAD, 2, "a1", "u1"),
    row(THREAD, 3, "a1", "u1"),
    row(THREAD, 4, "s1", "a1"),
    row(THREAD, 5, "u2", "s1"),
    row(OTHER, 1, "v1", null),
  ]);
  const adapter = new PostgresHistoryAdapter(pool);
  expect((await adapter.get({ owner: "o", threadId: THREAD })).map((m) => m.id)).toEqual(["u1", "a1", "u2"]);
  expect(await adapter.versions.versions({ owner: "o", threadId: THREAD })).toEqual([]);
  // The next message follows the last one.
  await adapter.appendUserMessage({ owner: "o", threadId: THREAD, turnId: "t", message: { id: "u3", role: "user", content: "more" } });
  const { rows: last } = await pool.query("SELECT parent_message_id FROM messages WHERE message_id = 'u3'");
  expect(last).toEqual([{ parent_message_id: "u2" }]);
});

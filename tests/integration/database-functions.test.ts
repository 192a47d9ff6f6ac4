import { execFileSync } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { runner } from "node-pg-migrate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyFunctions, migrate } from "@threadline/history/migrate";
import { scratchDatabase, type ScratchDatabase } from "../support/scratch-database";

// The database functions live in packages/history/db/functions/, one file each, applied after
// the versioned migrations whenever a file's text changes. A database
// migrated at the last commit before that move upgrades to exactly the schema
// a new database gets, with every function as it was.

/** The last commit whose migrations still defined the functions themselves. */
const BEFORE = "a12e42c8d119ef349a3272fab495183457c9779f";
const FUNCTIONS_DIR = path.join(process.cwd(), "packages", "history", "db", "functions");
/** The functions written since that commit. */
const ADDED = [
  "threadline_answered",
  "threadline_append_reply",
  "threadline_append_user_message",
  "threadline_budget_status",
  "threadline_claim_continuation",
  "threadline_decide_approval",
  "threadline_delete_thread",
  "threadline_finish_turn",
  "threadline_import_parts",
  "threadline_open_turn",
  "threadline_open_version",
  "threadline_post_due_reminders",
  "threadline_post_reminder",
  "threadline_renew_turn",
  "threadline_reply_to",
  "threadline_reserve_call",
  "threadline_schedule_reminder",
  "threadline_settle_call",
  "threadline_settle_waiting",
  "threadline_store_file",
  "threadline_sweep_files",
  "threadline_write_document",
];
/** The functions a later feature rewrote since (their own tests say what they do now): the move kept every other one as it was. */
const REWRITTEN = ["threadline_append_reply", "threadline_append_user_message", "threadline_claim_turn", "threadline_fork_thread", "threadline_import_finish", "threadline_import_parts", "threadline_open_turn", "threadline_open_version", "threadline_request_stop"];
/** The tables made since that commit, whose indexes are new too. */
const TABLES_ADDED = [
  "db_functions",
  "document_versions",
  "documents",
  "files",
  "message_feedback",
  "model_usage",
  "reminders",
  "tool_approvals",
  "auth_users",
  "auth_sessions",
  "auth_accounts",
  "auth_verifications",
  "auth_passkeys",
  "auth_invites",
  "auth_first_admin",
  "budgets",
  "budget_groups",
  "budget_group_members",
  "model_calls",
  "spend_days",
  "shares",
  "memories",
  "memory_settings",
  "memory_lessons",
  "memory_uses",
  "temporary_threads",
];
/** Indexes made since on tables that were there. */
const INDEXES_ADDED = ["messages_waiting_idx", "messages_file_refs_idx"];
const MIGRATIONS_DIR = path.join(process.cwd(), "packages", "history", "db", "migrations");

function hasCommit(): boolean {
  try {
    execFileSync("git", ["cat-file", "-e", `${BEFORE}^{commit}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

interface Schema {
  functions: { signature: string; definition: string }[];
  triggers: string[];
  indexes: string[];
  columns: string[];
  constraints: string[];
}

async function schema(url: string): Promise<Schema> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async (sql: string) => (await client.query(sql)).rows;
    return {
      functions: await rows(
        `SELECT p.oid::regprocedure::text AS signature, pg_get_functiondef(p.oid) AS definition
           FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`,
      ),
      triggers: (await rows("SELECT pg_get_triggerdef(oid) AS d FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname")).map((r) => r.d),
      indexes: (await rows("SELECT indexdef AS d FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname")).map((r) => r.d),
      columns: (
        await rows(
          `SELECT concat_ws(' ', table_name, column_name, data_type, is_nullable, column_default) AS d
             FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name`,
        )
      ).map((r) => r.d),
      constraints: (
        await rows(
          `SELECT concat_ws(' ', conrelid::regclass::text, conname, pg_get_constraintdef(oid)) AS d
             FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1`,
        )
      ).map((r) => r.d),
    };
  } finally {
    await client.end();
  }
}

describe.skipIf(!hasCommit())("database functions, one file each", () => {
  let oldMigrations: string;
  let upgraded: ScratchDatabase;
  let fresh: ScratchDatabase;

  beforeAll(async () => {
    oldMigrations = await mkdtemp(path.join(tmpdir(), "threadline-migrations-"));
    execFileSync("sh", ["-c", `git archive ${BEFORE} migrations | tar -x -C ${JSON.stringify(oldMigrations)}`]);
    upgraded = await scratchDatabase("functions_upgraded");
    fresh = await scratchDatabase("functions_fresh");
  }, 120_000);
  afterAll(async () => {
    await upgraded?.drop();
    await fresh?.drop();
    if (oldMigrations) await rm(oldMigrations, { recursive: true, force: true });
  });

  it("a database migrated before the move upgrades to what a new one gets, every function as it was", async () => {
    // As the app migrated it then: node-pg-migrate over that commit's migrations.
    await runner({
      databaseUrl: upgraded.url,
      dir: path.join(oldMigrations, "migrations"),
      direction: "up",
      migrationsTable: "pgmigrations",
      count: Infinity,
      checkOrder: true,
      log: () => {},
    });
    const before = await schema(upgraded.url);
    expect(before.functions.length).toBeGreaterThan(20);

    const files = (await readdir(FUNCTIONS_DIR)).map((name) => name.replace(/\.sql$/, "")).sort();
    const migrationsThen = new Set(await readdir(path.join(oldMigrations, "migrations")));
    const migrationsSince = (await readdir(MIGRATIONS_DIR)).filter((name) => !migrationsThen.has(name)).map((name) => name.replace(/\.sql$/, "")).sort();
    expect(migrationsSince[0]).toBe("1734100000000_database-functions");
    expect(await migrate(upgraded.url)).toEqual([...migrationsSince, ...files.map((name) => `db/functions/${name}`)]);
    expect(await migrate(fresh.url)).toContain("db/functions/threadline_open_turn");

    const after = await schema(upgraded.url);
    expect(after).toEqual(await schema(fresh.url));
    // Every function kept its definition, byte for byte; only the overload nothing called is gone, and
    // the rules the adapter kept in its own SQL (the lease, the outcome, the reply) are functions now.
    const existed = new Set(before.functions.map((f) => f.signature));
    const kept = (f: { signature: string }) => !REWRITTEN.includes(f.signature.replace(/\(.*$/, ""));
    expect(after.functions.filter((f) => existed.has(f.signature) && kept(f))).toEqual(
      before.functions.filter((f) => f.signature !== "threadline_upsert_thread(uuid,text)" && kept(f)),
    );
    expect(after.functions.filter((f) => !existed.has(f.signature)).map((f) => f.signature.replace(/\(.*$/, ""))).toEqual(ADDED);
    expect(before.functions.map((f) => f.signature)).toContain("threadline_upsert_thread(uuid,text)");
    expect(after.triggers).toEqual(before.triggers);
    const madeSince = (index: string) => TABLES_ADDED.some((table) => index.includes(` public.${table} `)) || INDEXES_ADDED.some((name) => index.includes(` ${name} `));
    expect(after.indexes.filter((index) => !madeSince(index))).toEqual(before.indexes);
    // One file per function, named after it; the search vector stays in its migration (an index is built on it).
    expect(after.functions.map((f) => f.signature.replace(/\(.*$/, "")).filter((name) => name !== "threadline_search_vector").sort()).toEqual(files);

    expect(await migrate(upgraded.url)).toEqual([]);
  }, 120_000);

  it("applies a changed file alone, and a file that fails names itself and changes nothing", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "threadline-functions-"));
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    try {
      await cp(FUNCTIONS_DIR, dir, { recursive: true });
      const file = path.join(dir, "threadline_path_end.sql");
      const original = await readFile(file, "utf8");
      await writeFile(file, `${original}\n-- a comment changes the text, and so the checksum\n`);
      expect(await applyFunctions(client, dir)).toEqual(["threadline_path_end"]);
      expect(await applyFunctions(client, dir)).toEqual([]);

      const definitions = async () => (await client.query("SELECT prosrc FROM pg_proc WHERE proname = 'threadline_recount'")).rows;
      const was = await definitions();
      await writeFile(path.join(dir, "threadline_recount.sql"), "CREATE OR REPLACE FUNCTION threadline_recount(p_thread uuid) RETURNS void LANGUAGE sql AS $$ SELECT 1 $$;\n");
      // Applied in name order: the recount's file goes first, then this one fails.
      await writeFile(
        path.join(dir, "threadline_turn_running.sql"),
        "CREATE OR REPLACE FUNCTION threadline_turn_running(tu turns) RETURNS boolean LANGUAGE no_such_language AS $$ SELECT true $$;\n",
      );
      await expect(applyFunctions(client, dir)).rejects.toThrow(/^db\/functions\/threadline_turn_running\.sql: language "no_such_language" does not exist/);
      expect(await definitions()).toEqual(was); // the recount file before it was rolled back with it

      // A body that names what does not exist fails when it is applied, not when it first runs.
      await writeFile(
        path.join(dir, "threadline_turn_running.sql"),
        "CREATE OR REPLACE FUNCTION threadline_turn_running(tu turns) RETURNS boolean LANGUAGE sql AS $$ SELECT threadline_no_such_rule(tu) $$;\n",
      );
      await expect(applyFunctions(client, dir)).rejects.toThrow(/^db\/functions\/threadline_turn_running\.sql: function threadline_no_such_rule\(turns\) does not exist/);
      expect((await client.query("SELECT count(*)::int AS n FROM db_functions WHERE name = 'threadline_recount'")).rows).toEqual([{ n: 1 }]);
    } finally {
      await client.end();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// Plain JavaScript so that the start scripts (plain Node) and the tests share it.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { runner } from "node-pg-migrate";

// The package's db/: migrations/ (tables, indexes, data) and functions/ (one current file per function).
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "db");
const MIGRATIONS_DIR = path.join(ROOT, "migrations");
const FUNCTIONS_DIR = path.join(ROOT, "functions");

function databaseName(databaseUrl) {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
}

/** Runs `work` on a connection to the same server's maintenance database. */
async function onServer(databaseUrl, work) {
  const admin = new URL(databaseUrl);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates the database named in the URL when the server has none by that name. */
export async function ensureDatabase(databaseUrl) {
  const probe = new pg.Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
    return false;
  } catch (error) {
    if (error?.code !== "3D000") throw error; // 3D000: database does not exist
  } finally {
    await probe.end().catch(() => {});
  }
  await onServer(databaseUrl, async (client) => {
    try {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(databaseName(databaseUrl))}`);
    } catch (error) {
      // Created meanwhile by another process: 42P04, or 23505 when both inserted its catalog row at once.
      if (error?.code !== "42P04" && error?.code !== "23505") throw error;
    }
  });
  return true;
}

/** Drops and creates the database: the test suites start from nothing. */
export async function recreateDatabase(databaseUrl) {
  const name = pg.escapeIdentifier(databaseName(databaseUrl));
  await onServer(databaseUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  });
}

/**
 * node-pg-migrate's own lock (a session advisory lock under this key) only
 * tries once, and a second server starting at the same moment would exit with
 * "Another migration is already running". Taking the same lock first, and
 * waiting for it, lets the runner's own attempt succeed (advisory locks are
 * reentrant within a session) while a migration run elsewhere, even by
 * node-pg-migrate's own CLI, still keeps this one out.
 */
export const MIGRATION_LOCK_KEY = "7241865325823964";
const LOCK_RETRY_MS = 250;
export const DEFAULT_LOCK_WAIT_MS = 60_000;

/** Another migration run held the lock for longer than this one would wait. */
export class MigrationLockTimeout extends Error {
  name = "MigrationLockTimeout";
  constructor(waitMs) {
    super(
      `another migration run has held the database's migration lock for ${Math.round(waitMs / 1000)} s; ` +
        "if no other server is starting, a stuck session holds it (see pg_locks, locktype advisory) and must be ended",
    );
  }
}

async function waitForLock(client, waitMs) {
  const until = Date.now() + waitMs;
  for (;;) {
    const { rows } = await client.query(`SELECT pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) AS locked`);
    if (rows[0].locked) return;
    if (Date.now() >= until) throw new MigrationLockTimeout(waitMs);
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

/**
 * Applies pending migrations; returns the names of the ones it ran. While
 * another run migrates the same database (two servers starting at once), this
 * one waits for it, up to `lockWaitMs`, then finds nothing left to do.
 */
export async function migrate(databaseUrl, options = {}) {
  // Named, so that a run waiting (or stuck) can be found in pg_stat_activity.
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "threadline-migrate" });
  await client.connect();
  try {
    return await migrateOn(client, options);
  } finally {
    // Ending the session releases the lock.
    await client.end().catch(() => {});
  }
}

/**
 * migrate() on a connection the caller holds and ends (the session's end
 * releases the lock): the versioned migrations, then the database functions
 * whose files changed. `dir` and `functionsDir`: where they are, when this
 * file was bundled away from them (packages/agentkit-history copies them
 * beside it). Returns the migrations' names, then `db/functions/<name>` for
 * each function file applied.
 */
export async function migrateOn(
  client,
  { log = () => {}, lockWaitMs = DEFAULT_LOCK_WAIT_MS, dir = MIGRATIONS_DIR, functionsDir = FUNCTIONS_DIR } = {},
) {
  await waitForLock(client, lockWaitMs);
  const applied = await runner({
    dbClient: client,
    dir,
    direction: "up",
    migrationsTable: "pgmigrations",
    count: Infinity,
    checkOrder: true,
    log,
    verbose: false,
  });
  // Still under the lock: node-pg-migrate's release only undid its own take of it.
  const functions = await applyFunctions(client, functionsDir);
  return [...applied.map((m) => m.name), ...functions.map((name) => `db/functions/${name}`)];
}

/**
 * Each database function has one file, its current text (`CREATE OR REPLACE`,
 * with its triggers when it has any). A file is applied when its text differs
 * from the one last applied (db_functions keeps each one's checksum), all of
 * them in one transaction, so a file that fails leaves every function as it
 * was. Returns the names applied.
 */
export async function applyFunctions(client, functionsDir = FUNCTIONS_DIR) {
  const files = (await readdir(functionsDir)).filter((name) => name.endsWith(".sql")).sort();
  const sources = await Promise.all(
    files.map(async (file) => ({ name: file.slice(0, -".sql".length), sql: await readFile(path.join(functionsDir, file), "utf8") })),
  );
  const run = async ({ name, sql }) => {
    try {
      await client.query(sql);
    } catch (error) {
      throw new Error(`db/functions/${name}.sql: ${error.message}`, { cause: error });
    }
  };
  await client.query("BEGIN");
  try {
    const { rows } = await client.query("SELECT name, checksum FROM db_functions");
    const current = new Map(rows.map((row) => [row.name, row.checksum]));
    const changed = sources
      .map((source) => ({ ...source, checksum: createHash("sha256").update(source.sql).digest("hex") }))
      .filter(({ name, checksum }) => current.get(name) !== checksum);
    // Twice: first with bodies unchecked, so a function may call one whose file
    // comes later; then checked, with every function there, so a body that
    // names what does not exist fails here rather than when it first runs.
    await client.query("SET LOCAL check_function_bodies = off");
    for (const source of changed) await run(source);
    await client.query("SET LOCAL check_function_bodies = on");
    for (const source of changed) await run(source);
    for (const { name, checksum } of changed) {
      await client.query(
        `INSERT INTO db_functions (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [name, checksum],
      );
    }
    await client.query("COMMIT");
    return changed.map(({ name }) => name);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

// Plain JavaScript so that the start scripts (plain Node) and the tests share it.
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { runner } from "node-pg-migrate";

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "migrations");

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
      if (error?.code !== "42P04") throw error; // created meanwhile by another process
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

/** Applies pending migrations; returns the names of the ones it ran. */
export async function migrate(databaseUrl, { log = () => {} } = {}) {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: "up",
    migrationsTable: "pgmigrations",
    count: Infinity,
    checkOrder: true,
    log,
    verbose: false,
  });
  return applied.map((m) => m.name);
}

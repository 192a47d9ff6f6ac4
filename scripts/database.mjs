import path from "node:path";
import { prepareDatabase } from "./prepare-db.mjs";

/**
 * The database the app will use, ready and migrated: DATABASE_URL when set,
 * otherwise the embedded Postgres with its data in EMBEDDED_DB_DIR (.data/pglite).
 * Sets DATABASE_URL (and the pool size the embedded one needs) for child processes;
 * `embedded` says which it is.
 * A problem the person starting the app can fix ends the process with a
 * paragraph that says what to do, not a stack trace.
 */
export async function openDatabase() {
  let embedded;
  if (!process.env.DATABASE_URL) {
    const dataDir = path.resolve(process.env.EMBEDDED_DB_DIR || ".data/pglite");
    embedded = await startEmbedded(dataDir);
    process.env.DATABASE_URL = embedded.url;
    process.env.DATABASE_POOL_SIZE = String(embedded.poolSize);
    console.log(
      [
        "[threadline] DATABASE_URL is not set: using the embedded Postgres (PGlite).",
        `[threadline]   its data lives in ${dataDir} and survives restarts (delete the folder to start over);`,
        `[threadline]   it is served at ${embedded.url} while the app runs.`,
        "[threadline]   To use a real Postgres, set DATABASE_URL in .env (see .env.example); `docker compose up -d db` starts one.",
      ].join("\n"),
    );
  }
  await prepareDatabase(process.env.DATABASE_URL);
  return { embedded: Boolean(embedded), close: async () => embedded?.stop() };
}

async function startEmbedded(dataDir) {
  // Loaded only when needed: the Docker image leaves PGlite out.
  let module;
  try {
    module = await import("../lib/db/embedded.mjs");
  } catch (error) {
    if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
    fail("DATABASE_URL is not set, and this build has no embedded Postgres (the Docker image leaves it out). Set DATABASE_URL to your Postgres server, e.g. postgres://postgres:postgres@db:5432/threadline.");
  }
  try {
    const embedded = await module.startEmbeddedPostgres({ dataDir });
    return { ...embedded, poolSize: module.EMBEDDED_POOL_SIZE };
  } catch (error) {
    if (error instanceof module.EmbeddedDatabaseError) fail(error.message);
    throw error;
  }
}

function fail(paragraph) {
  console.error(`\n[threadline] ${paragraph}\n`);
  process.exit(1);
}

import path from "node:path";
import { EMBEDDED_POOL_SIZE, startEmbeddedPostgres } from "../lib/db/embedded.mjs";
import { prepareDatabase } from "./prepare-db.mjs";

/**
 * The database the app will use, ready and migrated: DATABASE_URL when set,
 * otherwise the embedded Postgres with its data in EMBEDDED_DB_DIR (.data/pglite).
 * Sets DATABASE_URL (and the pool size the embedded one needs) for child processes.
 */
export async function openDatabase() {
  let embedded;
  if (!process.env.DATABASE_URL) {
    const dataDir = path.resolve(process.env.EMBEDDED_DB_DIR || ".data/pglite");
    embedded = await startEmbeddedPostgres({ dataDir });
    process.env.DATABASE_URL = embedded.url;
    process.env.DATABASE_POOL_SIZE = String(EMBEDDED_POOL_SIZE);
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
  return { close: async () => embedded?.stop() };
}

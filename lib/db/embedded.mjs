// An embedded Postgres (PGlite: Postgres compiled to WebAssembly) served over
// the Postgres wire protocol, so that the app, its migrations and its SQL run
// unchanged through `pg` when no DATABASE_URL is configured.
import { access, constants, mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { lockDataDir } from "./data-dir-lock.mjs";

/**
 * One PGlite instance runs one backend: statements from several connections
 * would interleave inside each other's transactions. Whoever connects to it
 * must use a single connection (DATABASE_POOL_SIZE=1) so access is serialized.
 */
export const EMBEDDED_POOL_SIZE = 1;

/** A data folder the embedded Postgres cannot use; `message` is a paragraph for the person starting the app. */
export class EmbeddedDatabaseError extends Error {
  name = "EmbeddedDatabaseError";
}

/**
 * Starts PGlite with its data in `dataDir` (a folder, created with its parents
 * if missing, and locked against a second instance) or in memory when
 * `dataDir` is omitted, listening on 127.0.0.1.
 */
export async function startEmbeddedPostgres({ dataDir, port = 0, maxConnections = 4 } = {}) {
  const lock = dataDir ? await prepareDataDir(dataDir) : undefined;
  let db;
  try {
    db = await openPGlite(dataDir);
    const server = new PGLiteSocketServer({ db, port, host: "127.0.0.1", maxConnections });
    await server.start();
    const address = server.getServerConn(); // "127.0.0.1:54321"
    return {
      url: `postgres://postgres@${address}/postgres`,
      async stop() {
        try {
          await server.stop();
          await db.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (error) {
    await db?.close().catch(() => {});
    lock?.release();
    throw error;
  }
}

async function prepareDataDir(dataDir) {
  try {
    // PGlite creates only the last folder of the path.
    await mkdir(dataDir, { recursive: true });
    await access(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `The embedded Postgres cannot use ${dataDir} for its data (${error.code ?? error.message}): ` +
        "the folder must be one this user can create and write. Set EMBEDDED_DB_DIR to a writable folder, " +
        "fix the folder's permissions, or set DATABASE_URL to use a Postgres server instead.",
    );
  }
  let lock;
  try {
    lock = lockDataDir(dataDir);
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `The embedded Postgres cannot lock its data folder ${dataDir} (${error.code ?? error.message}). ` +
        "Set EMBEDDED_DB_DIR to a writable folder, or set DATABASE_URL to use a Postgres server instead.",
    );
  }
  if (lock.holder) {
    const who = lock.holder.pid ? `process ${lock.holder.pid}${lock.holder.host ? ` on ${lock.holder.host}` : ""}` : "another process";
    throw new EmbeddedDatabaseError(
      `The embedded Postgres's data folder ${dataDir} is in use by another running instance of the app (${who}); ` +
        "two instances writing one folder would corrupt it. Stop the other instance first, or give this one a folder " +
        "of its own with EMBEDDED_DB_DIR, or point both at a Postgres server with DATABASE_URL.",
    );
  }
  return lock;
}

async function openPGlite(dataDir) {
  if (!dataDir) return PGlite.create();
  try {
    return await PGlite.create({ dataDir });
  } catch (error) {
    throw new EmbeddedDatabaseError(await cannotOpen(dataDir, error));
  }
}

/** Why PGlite could not open an existing folder, in words that say what to do. */
async function cannotOpen(dataDir, error) {
  const pgliteVersion = await installedVersion("@electric-sql/pglite");
  const written = (await readFile(path.join(dataDir, "PG_VERSION"), "utf8").catch(() => "")).trim();
  const cause = written
    ? `it was written by another PGlite version than this app's ${pgliteVersion} (its PG_VERSION file says Postgres ${written}), or it is damaged`
    : `PGlite ${pgliteVersion} reports: ${error?.message ?? error}`;
  return (
    `The embedded Postgres cannot open its data folder ${dataDir}: ${cause}. ` +
    "To start over with an empty database, move the folder away (or set EMBEDDED_DB_DIR to a new folder). " +
    "To keep its data, open the folder with the PGlite version that wrote it, export it with pg_dump, " +
    "and load the dump into a Postgres server that you then name in DATABASE_URL."
  );
}

/** A package's version, read from the package.json above its entry point (PGlite does not export that file). */
async function installedVersion(name) {
  let dir = path.dirname(createRequire(import.meta.url).resolve(name));
  while (dir !== path.dirname(dir)) {
    const manifest = await readFile(path.join(dir, "package.json"), "utf8").catch(() => undefined);
    if (manifest && JSON.parse(manifest).name === name) return JSON.parse(manifest).version;
    dir = path.dirname(dir);
  }
  return "(unknown version)";
}

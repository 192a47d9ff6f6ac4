// An embedded Postgres (PGlite: Postgres compiled to WebAssembly) served over
// the Postgres wire protocol, so that the app, its migrations and its SQL run
// unchanged through `pg` when no DATABASE_URL is configured.
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/**
 * One PGlite instance runs one backend: statements from several connections
 * would interleave inside each other's transactions. Whoever connects to it
 * must use a single connection (DATABASE_POOL_SIZE=1) so access is serialized.
 */
export const EMBEDDED_POOL_SIZE = 1;

/**
 * Starts PGlite with its data in `dataDir` (a folder; created if missing) or
 * in memory when `dataDir` is omitted, listening on 127.0.0.1.
 */
export async function startEmbeddedPostgres({ dataDir, port = 0, maxConnections = 4 } = {}) {
  const db = await PGlite.create(dataDir ? { dataDir } : {});
  const server = new PGLiteSocketServer({ db, port, host: "127.0.0.1", maxConnections });
  await server.start();
  const address = server.getServerConn(); // "127.0.0.1:54321"
  return {
    url: `postgres://postgres@${address}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

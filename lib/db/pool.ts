import "server-only";
import pg from "pg";
import { AppError } from "@/lib/errors";

// One pool per process, created on first use. Kept on globalThis so that dev
// hot reloads reuse it instead of leaking a new pool per edit.
const globalForPool = globalThis as unknown as { threadlinePool?: pg.Pool };

export function getPool(): pg.Pool {
  if (!globalForPool.threadlinePool) {
    if (!process.env.DATABASE_URL) {
      // npm run dev / npm start set it (to the embedded database when none is configured).
      throw new AppError("internal:config", "DATABASE_URL is not set: start the app with `npm run dev` or `npm start`, or set DATABASE_URL.");
    }
    const pool = new pg.Pool({
      connectionString: process.env.DATABASE_URL,
      max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection must not crash the server.
    pool.on("error", (error) => console.error("[db] idle client error:", error.message));
    globalForPool.threadlinePool = pool;
  }
  return globalForPool.threadlinePool;
}

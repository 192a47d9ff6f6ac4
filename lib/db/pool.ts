import "server-only";
import pg from "pg";
import type { CoreSettings } from "@/lib/env";
import { AppError } from "@threadline/history/errors";

/**
 * A pool for the configured database. The app holds one for the process
 * (lib/app.ts builds it on first use); never one per request.
 */
export function createPool({ DATABASE_URL, DATABASE_POOL_SIZE }: Pick<CoreSettings, "DATABASE_URL" | "DATABASE_POOL_SIZE">): pg.Pool {
  if (!DATABASE_URL) {
    // npm run dev / npm start set it (to the embedded database when none is configured).
    throw new AppError("internal:config", "DATABASE_URL is not set: start the app with `npm run dev` or `npm start`, or set DATABASE_URL.");
  }
  const pool = new pg.Pool({
    connectionString: DATABASE_URL,
    max: DATABASE_POOL_SIZE,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection must not crash the server.
  pool.on("error", (error) => console.error("[db] idle client error:", error.message));
  return pool;
}

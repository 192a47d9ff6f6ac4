import "server-only";
import { randomBytes } from "node:crypto";
import type pg from "pg";

/** Reads the cookie-signing key: what signs and checks identities, history and turn events. */
export type SessionSecret = () => Promise<string>;

/**
 * The cookie-signing key: SESSION_SECRET when the operator sets one, else a
 * key the app generated once and keeps in its database, so a restart (or a
 * second instance) signs and checks with the same key without any setup.
 * Loaded on the first read and kept. The pool is asked for only then, and
 * only without SESSION_SECRET: building it refuses when DATABASE_URL is unset.
 */
export function sessionSecret(pool: () => pg.Pool, configured: string | undefined): SessionSecret {
  let cached: Promise<string> | undefined;
  return () =>
    (cached ??= loadSecret(pool, configured).catch((error) => {
      cached = undefined; // a database that was down must not poison the process
      throw error;
    }));
}

async function loadSecret(getPool: () => pg.Pool, configured: string | undefined): Promise<string> {
  if (configured) return configured; // SESSION_SECRET: at least 32 characters
  const pool = getPool();
  await pool.query("INSERT INTO app_secrets (name, value) VALUES ('session', $1) ON CONFLICT (name) DO NOTHING", [
    randomBytes(32).toString("base64url"),
  ]);
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM app_secrets WHERE name = 'session'");
  return rows[0].value;
}

import "server-only";
import { randomBytes } from "node:crypto";
import { getPool } from "@/lib/db/pool";
import { env } from "@/lib/env";

let cached: Promise<string> | undefined;

/**
 * The cookie-signing key: SESSION_SECRET when the operator sets one, else a
 * key the app generated once and keeps in its database, so a restart (or a
 * second instance) signs and checks with the same key without any setup.
 */
export function getSessionSecret(): Promise<string> {
  cached ??= loadSecret().catch((error) => {
    cached = undefined; // a database that was down must not poison the process
    throw error;
  });
  return cached;
}

async function loadSecret(): Promise<string> {
  const fromEnv = env().SESSION_SECRET; // at least 32 characters, or unset
  if (fromEnv) return fromEnv;
  const pool = getPool();
  await pool.query("INSERT INTO app_secrets (name, value) VALUES ('session', $1) ON CONFLICT (name) DO NOTHING", [
    randomBytes(32).toString("base64url"),
  ]);
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM app_secrets WHERE name = 'session'");
  return rows[0].value;
}

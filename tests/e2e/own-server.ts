import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { expect } from "@playwright/test";
import { CRASH_APP_PORT, E2E_APP_ENV, E2E_DATABASE_URL, E2E_EMBEDDED_DIRS } from "../../scripts/e2e-env.mjs";

// A production server a spec starts by itself (to kill it, or to fill its
// database first), on a database held open by a process of its own: the
// embedded one, or the e2e server's when E2E_DATABASE_URL is set.

/** How soon a dead turn's message may be answered again, on these servers. */
export const LEASE_SECONDS = 2;

/** The database, held open by a process of its own: the embedded one (in `embeddedDir`), or the e2e server's (`serverUrl`; created when missing). */
export async function holdDatabase(embeddedDir = E2E_EMBEDDED_DIRS[3], serverUrl = E2E_DATABASE_URL): Promise<{ url: string; pool: string; process: ChildProcess }> {
  const child = spawn(process.execPath, ["tests/support/hold-database.mjs"], {
    env: { ...process.env, ...(serverUrl ? { DATABASE_URL: serverUrl } : { DATABASE_URL: "", EMBEDDED_DB_DIR: embeddedDir }) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    const found = /^DATABASE_URL=(\S+) POOL=(\d+)$/.exec(line);
    if (found) return { url: found[1], pool: found[2], process: child };
  }
  throw new Error("the database did not open");
}

export async function startServer(database: { url: string; pool: string }, port = CRASH_APP_PORT, extra: Record<string, string> = {}): Promise<ChildProcess> {
  const { EMBEDDED_DB_DIR: _embedded, ...env } = E2E_APP_ENV as Record<string, string>;
  const server = spawn(process.execPath, ["--import", "./scripts/client-address.mjs", ".next/standalone/server.js"], {
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: database.pool,
      TURN_LEASE_SECONDS: String(LEASE_SECONDS),
      NODE_ENV: "production",
      ...extra,
    },
    stdio: "inherit",
  });
  await expect
    .poll(async () => (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.status, { timeout: 60_000 })
    .toBe(200);
  return server;
}


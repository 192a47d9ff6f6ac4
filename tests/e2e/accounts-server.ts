import { spawn, type ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import pg from "pg";
import { ACCOUNTS_APP_PORTS, ACCOUNTS_STANDIN_PORT, E2E_DATABASE_URL, E2E_EMBEDDED_DIRS } from "../../scripts/e2e-env.mjs";
import { holdDatabase, startServer } from "./own-server";

// The sign-in specs' own production server, AUTH_MODE=accounts, on a
// database nobody else uses (its first sign-up is its admin), on the runtime
// of the spec's project: inline, or Inngest through a stand-in of its own.

export interface AccountsServer {
  base: string;
  /** Its database, for a spec that writes to it directly. */
  databaseUrl: string;
  stop(): Promise<void>;
}

/** Ends `child` with `signal`, and with SIGKILL if it is still there after ten seconds. */
const stopped = (child: ChildProcess, signal: NodeJS.Signals) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const hard = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill(signal);
  });

/** Where a server of its own lives: its port, its database's name after the e2e one's, its embedded database's folder. */
export interface ServerPlace {
  port: number;
  name: string;
  embeddedDir: string;
}

const ACCOUNTS_PLACES: Record<"inline" | "inngest", ServerPlace> = {
  inline: { port: ACCOUNTS_APP_PORTS.inline, name: "accounts_inline", embeddedDir: E2E_EMBEDDED_DIRS[5] },
  inngest: { port: ACCOUNTS_APP_PORTS.inngest, name: "accounts_inngest", embeddedDir: E2E_EMBEDDED_DIRS[6] },
};

/** An empty database for the server, migrated and held open: a database of its own on the e2e server, or an embedded one in a folder of its own. */
async function emptyDatabase({ name: suffix, embeddedDir: dir }: ServerPlace) {
  if (!E2E_DATABASE_URL) {
    await rm(dir, { recursive: true, force: true });
    return holdDatabase(dir, undefined);
  }
  const url = new URL(E2E_DATABASE_URL);
  const name = `${url.pathname.slice(1)}_${suffix}`;
  const admin = new pg.Client({ connectionString: Object.assign(new URL(E2E_DATABASE_URL), { pathname: "/postgres" }).toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
  url.pathname = `/${name}`;
  return holdDatabase(dir, url.toString());
}

/** `place`: the sign-in specs' own for the runtime unless another spec names its own. */
export async function startAccountsServer(runtime: "inline" | "inngest", settings: Record<string, string> = {}, place = ACCOUNTS_PLACES[runtime]): Promise<AccountsServer> {
  const { port } = place;
  // localhost, not 127.0.0.1: a passkey belongs to a domain (the app's rpID without APP_URL), never to an IP address.
  const base = `http://localhost:${port}`;
  const database = await emptyDatabase(place);
  const children: ChildProcess[] = [database.process];
  let inngest: Record<string, string> = {};
  if (runtime === "inngest") {
    const standin = spawn(process.execPath, ["tests/support/inngest-standin/index.mjs"], {
      env: { ...process.env, INNGEST_STANDIN_PORT: String(ACCOUNTS_STANDIN_PORT), INNGEST_STANDIN_APP_URL: `http://127.0.0.1:${port}/api/inngest`, INNGEST_STANDIN_MODE: "checkpointed" },
      stdio: "inherit",
    });
    children.push(standin);
    inngest = { INNGEST_DEV: `http://127.0.0.1:${ACCOUNTS_STANDIN_PORT}`, INNGEST_DEV_IS_LOCAL: "1" };
  }
  const server = await startServer(
    database,
    port,
    // The sign-in limits count per address: the whole spec comes from 127.0.0.1.
    { AUTH_MODE: "accounts", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0", ...inngest, ...settings },
  );
  children.push(server);
  return {
    base,
    databaseUrl: database.url,
    stop: async () => {
      // The server first (nothing of it is worth waiting for), the database it held last.
      const [held, ...rest] = children;
      for (const child of rest.reverse()) await stopped(child, child === server ? "SIGKILL" : "SIGTERM");
      await stopped(held, "SIGTERM");
    },
  };
}

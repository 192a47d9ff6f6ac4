import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

// A Postgres cluster of a test's own (initdb into a temp folder, its own port),
// for tests that stop and start a database: the shared server on 5432 is
// never touched. The server binaries come from the system's PostgreSQL
// (Debian: /usr/lib/postgresql/<version>/bin); Postgres refuses to run as
// root, so as root the cluster belongs to the `postgres` user.

function findBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((version) => path.join(root, version, "bin")).find((dir) => existsSync(path.join(dir, "initdb")));
}

/** Why a private cluster cannot be started here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (!findBinDir()) return "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql";
  return undefined;
}

function binDir(): string {
  const dir = findBinDir();
  if (!dir) throw new Error(`A private Postgres cannot be started: ${privatePostgresUnavailable()}.`);
  return dir;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrivatePostgres {
  url: string;
  start(): Promise<void>;
  /** A fast shutdown: open connections are cut, as in a restart. */
  stop(): Promise<void>;
  /** Stops it if running and removes its folder. */
  destroy(): Promise<void>;
}

export async function createPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(tmpdir(), "threadline-pg-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, ...(await postgresIds()));
  const exec = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);
  const data = path.join(dir, "data");
  await exec("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await exec("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "server.log"), "-w", "start"]);
      running = true;
    },
    async stop() {
      await exec("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      running = false;
    },
    async destroy() {
      if (running) await cluster.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

async function postgresIds(): Promise<[number, number]> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
  return [Number(uid), Number(gid)];
}

// The processes a benchmark run needs: a throwaway database, the app's
// production server (inline, or pointed at an Inngest server; optionally
// under the profiler), the end-to-end tests' Inngest stand-in, and the CPU a
// process has used.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { ensureDatabase, migrate } from "@threadline/history/migrate";

/** `root`: the checkout (its .next/standalone is run); `outDir`: where the servers' logs go; `basePort`: the app's port. */
export function benchServers({ root, outDir, basePort }) {
  /** A database of the run's own, migrated; `suffix` tells apart a second one of the same run. */
  async function throwawayDatabase(suffix = "") {
    const server = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL;
    if (server) {
      const url = new URL(server);
      url.pathname = `/threadline_bench_${process.pid}${suffix}`;
      await ensureDatabase(url.toString());
      await migrate(url.toString());
      return {
        kind: "postgres",
        url: url.toString(),
        poolSize: "10",
        drop: async () => {
          // The server's maintenance database: the one the address names may not exist (the bench made its own).
          const maintenance = new URL(server);
          maintenance.pathname = "/postgres";
          const admin = new pg.Client({ connectionString: maintenance.toString() });
          await admin.connect();
          await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(url.pathname.slice(1))} WITH (FORCE)`).catch(() => {});
          await admin.end();
        },
      };
    }
    const { startEmbeddedPostgres, EMBEDDED_POOL_SIZE } = await import("../../lib/db/embedded.mjs");
    const dir = mkdtempSync(path.join(tmpdir(), "threadline-bench-"));
    const embedded = await startEmbeddedPostgres({ dataDir: dir });
    await migrate(embedded.url);
    return {
      kind: "embedded (PGlite, one connection)",
      url: embedded.url,
      poolSize: String(EMBEDDED_POOL_SIZE),
      drop: async () => {
        await embedded.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  /** Runs `task` against a production server of this build (see startApp), stopped after. */
  async function withApp(options, task) {
    const server = await startApp(options);
    try {
      return await task(server);
    } finally {
      await server.stop();
    }
  }

  /**
   * The standalone server on `port` (default the base port), inline runtime unless `env`
   * points it at an Inngest server; `nodeArgs` go to node (the profiler, the inspector); `log`: its stderr.
   * With `workers`, `npm start`'s own cluster of that many workers instead (the start script,
   * whose migrations find nothing to do), sharing `poolSize` as `npm start` shares DATABASE_POOL_SIZE.
   */
  async function startApp({ databaseUrl, poolSize, modelUrl, port = basePort, env = {}, nodeArgs = [], workers }) {
    await portFree(port);
    const log = path.join(outDir, `server-${port}.log`);
    const command = workers
      ? [...nodeArgs, "scripts/run-app.mjs", "start"]
      : [...nodeArgs, "--import", "./scripts/client-address.mjs", ".next/standalone/server.js"];
    const child = spawn(process.execPath, command, {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOSTNAME: "127.0.0.1",
        DATABASE_URL: databaseUrl,
        DATABASE_POOL_SIZE: poolSize,
        SESSION_SECRET: "bench-secret-0123456789abcdef0123456789abcdef",
        MODEL_PROVIDER: "openai-compatible",
        OPENAI_COMPATIBLE_BASE_URL: modelUrl,
        MODEL: "mock-model",
        // The limits would refuse a load test; they cost round trips of their own, reported apart.
        RATE_LIMIT_CHAT_PER_MINUTE: "0",
        RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: "0",
        RATE_LIMIT_NEW_IDENTITIES_PER_HOUR: "0",
        RATE_LIMIT_IMPORTS_PER_HOUR: "0",
        RATE_LIMIT_IMPORTS_PER_HOUR_PER_ADDRESS: "0",
        RATE_LIMIT_SHARE_VIEWS_PER_MINUTE_PER_ADDRESS: "0",
        // Signed in, as the default mode runs: every request reads its session from the database.
        AUTH_MODE: "accounts",
        AUTH_SIGNUP: "open",
        RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0",
        INNGEST_DEV: "",
        ...(workers ? { WEB_CONCURRENCY: String(workers) } : {}),
        ...env,
      },
      // The server's own log goes beside the results.
      stdio: ["ignore", "ignore", openSync(log, "w")],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const url = `http://127.0.0.1:${port}`;
    const stop = async () => {
      child.kill("SIGTERM");
      await exited;
    };
    for (let i = 0; i < 600; i++) {
      const ok = await fetch(`${url}/api/health`).then((r) => r.ok, () => false);
      if (ok) return { url, pid: child.pid, log, stop };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await stop();
    throw new Error(`the app on port ${port} did not start`);
  }

  /**
   * The Inngest stand-in the end-to-end tests use (tests/support/inngest-standin),
   * in a process of its own so its work is neither the app's nor the client's;
   * it runs functions at the app on `appPort`, checkpointed (the SDK's default)
   * or, with mode "async", one request per step. `runs()`: what it did per
   * chat-turn run, summed; `traffic()`: the requests the app made to it.
   */
  async function startInngestStandin(appPort, { mode = "checkpointed" } = {}) {
    await portFree(basePort + 100);
    const url = `http://127.0.0.1:${basePort + 100}`;
    const child = spawn(process.execPath, ["tests/support/inngest-standin/index.mjs"], {
      cwd: root,
      env: { ...process.env, INNGEST_STANDIN_PORT: String(basePort + 100), INNGEST_STANDIN_APP_URL: `http://127.0.0.1:${appPort}/api/inngest`,
        INNGEST_STANDIN_MODE: mode,
      },
      stdio: ["ignore", "ignore", openSync(path.join(outDir, "inngest-standin.log"), "w")],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const stop = async () => {
      child.kill("SIGTERM");
      await exited;
    };
    for (let i = 0; i < 100; i++) {
      const ok = await fetch(`${url}/__standin/state`).then((r) => r.ok, () => false);
      if (ok) return { url, stop, runs, traffic };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await stop();
    throw new Error("the Inngest stand-in did not start");

    /** The requests the app made to it so far, by kind, and the TCP connections they came on. */
    async function traffic() {
      return (await (await fetch(`${url}/__standin/state`)).json()).traffic;
    }

    async function runs() {
      const state = await (await fetch(`${url}/__standin/state`)).json();
      const turns = state.runs.filter((r) => r.fnId === "threadline-chat-turn");
      const sum = (pick) => turns.reduce((total, r) => total + pick(r), 0);
      return {
        mode: state.mode,
        runs: turns.length,
        failed: turns.filter((r) => r.status !== "completed").length,
        appRequests: sum((r) => r.requests.length),
        steps: sum((r) => r.steps.length),
        checkpoints: sum((r) => r.checkpoints.length),
        // Every run's (the titles' too): the stand-in counts the requests, not whose they were.
        publishes: state.traffic.requests["POST /v1/realtime/publish"] ?? 0,
      };
    }
  }

  /**
   * The CPU time so far of the server process and the processes it started (a
   * cluster's workers), in ms (Linux /proc), or undefined elsewhere. A worker
   * that died since is not counted: the figures are read with all of them alive.
   */
  function cpuMs(pid) {
    try {
      const stats = readdirSync("/proc")
        .filter((entry) => /^\d+$/.test(entry))
        .map((entry) => {
          try {
            const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ");
            return { pid: Number(entry), parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
          } catch {
            return undefined; // gone meanwhile
          }
        })
        .filter(Boolean);
      const tree = new Set([pid]);
      let ticks = 0;
      for (let grew = true; grew; ) {
        grew = false;
        for (const stat of stats) if (!tree.has(stat.pid) && tree.has(stat.parent)) (tree.add(stat.pid), (grew = true));
      }
      for (const stat of stats) if (tree.has(stat.pid)) ticks += stat.ticks;
      if (!stats.some((stat) => stat.pid === pid)) return undefined;
      return (ticks * 1000) / 100;
    } catch {
      return undefined;
    }
  }

  return { throwawayDatabase, withApp, startApp, startInngestStandin, cpuMs };
}

/**
 * Fails when something listens on `port` already (a server left over from an
 * interrupted run): its health check would answer for the bench's server, and
 * the bench would measure the wrong one.
 */
function portFree(port) {
  return new Promise((resolve, reject) => {
    const probe = createServer()
      .once("error", (error) =>
        reject(new Error(`port ${port} is in use (${error.code}): stop what listens there, or move the bench's servers with --port=N`)),
      )
      .listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

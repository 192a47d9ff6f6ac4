import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { get } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "../support/db";
import { chatTurn, cleanEnv, freePort, stopGroup, visit, waitFor } from "../support/fresh-copy";

// `npm start` on every core: the start script's cluster of server.js workers,
// on the production build in .next/standalone (built here when there is none;
// after changing the app, `npm run build` first, as for `npm start`).
const root = path.resolve(__dirname, "..", "..");
let app: ChildProcess | undefined;

afterEach(async () => {
  await stopGroup(app);
  app = undefined;
});

beforeAll(() => {
  const standalone = path.join(root, ".next", "standalone");
  if (existsSync(path.join(standalone, "server.js")) && existsSync(path.join(standalone, ".next", "static"))) return;
  const build = spawnSync("npm", ["run", "build"], { cwd: root, env: cleanEnv({ NEXT_TELEMETRY_DISABLED: "1" }), encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
}, 900_000);

function start(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["scripts/run-app.mjs", "start"], {
    cwd: root,
    env: cleanEnv({
      HOME: tmpdir(),
      NEXT_TELEMETRY_DISABLED: "1",
      HOSTNAME: "127.0.0.1",
      // Other test files count turns from this address in the same database.
      RATE_LIMIT_CHAT_PER_MINUTE: "0",
      RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: "0",
      RATE_LIMIT_NEW_IDENTITIES_PER_HOUR: "0",
      ...env,
    }),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  app = child;
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { child, output: () => output, exited };
}

/** A GET on a connection of its own (a kept-alive one would stay with one worker). */
function getAlone(port: number, at: string, headers: Record<string, string> = {}): Promise<{ status: number; pid: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: at, headers, agent: false }, (response) => {
      let body = "";
      response.on("data", (d) => (body += d));
      response.on("end", () => resolve({ status: response.statusCode!, pid: Number(response.headers["x-worker"]), body }));
    }).on("error", reject);
  });
}

/** The worker that answered GET /api/health. */
const worker = (port: number) => getAlone(port, "/api/health");

/** Asks until `done` holds of the workers seen (at most `tries` answers, every one a 200). */
async function workersUntil(port: number, done: (seen: Set<number>) => boolean, tries = 200): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let i = 0; i < tries && !done(seen); i++) {
    const answer = await worker(port);
    expect(answer.status).toBe(200);
    seen.add(answer.pid);
    if (!done(seen)) await new Promise((r) => setTimeout(r, 50));
  }
  return seen;
}

async function until(condition: () => boolean, what: string, output: () => string): Promise<void> {
  for (let waited = 0; !condition(); waited += 100) {
    if (waited > 60_000) throw new Error(`${what} did not happen:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("npm start on every core", () => {
  it("serves from two workers, turns included, and replaces one that is killed", { timeout: 240_000 }, async () => {
    const port = await freePort();
    const run = start({ PORT: String(port), DATABASE_URL: TEST_DATABASE_URL, WEB_CONCURRENCY: "2" });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/api/health`, run.child, run.output);

    const first = await workersUntil(port, (seen) => seen.size === 2);
    expect(first.size, run.output()).toBe(2);
    expect(first.has(run.child.pid!)).toBe(false); // workers, not the primary
    expect(run.output()).toContain("2 server workers");

    // Turns, and each thread read back on connections of their own, which the workers take in turn.
    const cookie = await visit(base);
    for (const n of [1, 2]) {
      const turn = await chatTurn(base, cookie, `Turn ${n} on every core`);
      expect(turn.reply).toContain(`You wrote: "Turn ${n} on every core"`);
      for (const _ of [1, 2]) {
        const history = await getAlone(port, `/api/threads/${turn.threadId}/history`, { cookie });
        expect(history.status).toBe(200);
        expect(JSON.parse(history.body).messages.map((m: { content: string }) => m.content)).toEqual([`Turn ${n} on every core`, turn.reply]);
      }
    }

    const [killed, survivor] = [...first];
    process.kill(killed, "SIGKILL");
    await until(() => run.output().includes(`server worker ${killed} was killed by SIGKILL`), "the primary noticing the dead worker", run.output);
    const after = await workersUntil(port, (seen) => [...seen].some((pid) => !first.has(pid)));
    const replacement = [...after].find((pid) => !first.has(pid));
    expect(replacement, run.output()).toBeDefined();
    expect(after.has(killed)).toBe(false);
    await workersUntil(port, (seen) => seen.has(survivor) && seen.has(replacement!));
    expect(run.child.exitCode).toBeNull();

    // SIGTERM to the primary stops its workers, and it exits.
    process.kill(run.child.pid!, "SIGTERM");
    expect(await run.exited).toBe(143);
    for (const pid of [survivor, replacement!]) expect(() => process.kill(pid, 0)).toThrow();
  });

  it.each(["0", "two", "1.5"])("refuses WEB_CONCURRENCY=%j with one line, before anything starts", async (value) => {
    const run = start({ PORT: String(await freePort()), DATABASE_URL: TEST_DATABASE_URL, WEB_CONCURRENCY: value });
    expect(await run.exited).toBe(1);
    expect(run.output().trim()).toBe(`[threadline] WEB_CONCURRENCY must be a whole number from 1 to 256, not "${value}".`);
  });

  it("stops on a bad setting with its one line, said once though two workers were asked for", { timeout: 120_000 }, async () => {
    const run = start({ PORT: String(await freePort()), DATABASE_URL: TEST_DATABASE_URL, WEB_CONCURRENCY: "2", COMPACTION_TARGET_MESSAGES: "abc" });
    expect(await run.exited).not.toBe(0);
    const line = 'COMPACTION_TARGET_MESSAGES must be a whole number from 2 to 999999, not "abc".';
    expect(run.output().split(line), run.output()).toHaveLength(2);
    expect(run.output()).not.toMatch(/^\s+at /m);
  });

  it("runs one worker on the embedded Postgres, and says why", { timeout: 120_000 }, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "threadline-one-worker-"));
    try {
      const port = await freePort();
      const run = start({ PORT: String(port), EMBEDDED_DB_DIR: dataDir, WEB_CONCURRENCY: "2" });
      await waitFor(`http://127.0.0.1:${port}/api/health`, run.child, run.output);
      expect(run.output()).toContain("One server worker, not 2: the embedded Postgres is one backend");
      const seen = await workersUntil(port, () => false, 6);
      expect(seen.size).toBe(1);
      await stopGroup(app);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

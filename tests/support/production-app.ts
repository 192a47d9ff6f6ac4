import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { Agent, request as httpRequest, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { UIMessageChunk } from "ai";
import { parseChunks, replyText } from "./api";
import { cleanEnv, stopGroup, waitFor } from "./fresh-copy";

// The app as `npm start` runs it: the production build in .next/standalone,
// started by the start script (its migrations, then one server or a cluster
// of server workers), reached over real HTTP.

const root = path.resolve(__dirname, "..", "..");
const standalone = path.join(root, ".next", "standalone");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const isBuilt = () => existsSync(path.join(standalone, "server.js")) && existsSync(path.join(standalone, ".next", "static"));

/**
 * Builds the app (`npm run build`) when this checkout has no complete
 * production build; after changing the app, `npm run build` first, as for
 * `npm start`. Test files running side by side build it once: the first
 * takes a lock, the others wait for its build.
 */
export async function ensureProductionBuild(): Promise<void> {
  if (isBuilt()) return;
  const lock = path.join(tmpdir(), `threadline-build-${createHash("sha256").update(root).digest("hex").slice(0, 12)}.lock`);
  await takeLock(lock);
  try {
    if (isBuilt()) return; // built by the file that held the lock
    try {
      await promisify(execFile)("npm", ["run", "build"], {
        cwd: root,
        env: cleanEnv({ NEXT_TELEMETRY_DISABLED: "1" }),
        maxBuffer: 64 * 1024 * 1024,
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`npm run build failed:\n${stdout ?? ""}\n${stderr ?? ""}`);
    }
  } finally {
    await rm(lock, { force: true });
  }
}

/** A lock file holding its owner's pid; one left by a process that is gone is taken over. */
async function takeLock(file: string): Promise<void> {
  for (;;) {
    try {
      await writeFile(file, String(process.pid), { flag: "wx" });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number(await readFile(file, "utf8").catch(() => ""));
    if (holder > 0 && !isAlive(holder)) await rm(file, { force: true });
    else await sleep(1_000);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One `npm start` (the start script, in a process group of its own with everything it starts). */
export interface StartedApp {
  child: ChildProcess;
  port: number;
  base: string;
  /** What it printed so far, stdout and stderr together. */
  output(): string;
  /** Its exit code. */
  exited: Promise<number | null>;
  /** Resolves once it answers GET /api/health with 200; fails with its output when it exits first. */
  ready(): Promise<void>;
  /** Stops it and everything it started; nothing of it is left running when this resolves. */
  stop(): Promise<void>;
}

const started = new Set<StartedApp>();

/**
 * Starts `npm start` on the production build, on `env.PORT` (when given) and
 * 127.0.0.1, with the rate limits off (other test files count turns from this
 * address in the same database), X-Worker on, and the browser identity of
 * AUTH_MODE=open that the tests' visitors carry (the accounts tests set
 * their own). Call stopApps() in afterAll.
 */
export function startApp(env: Record<string, string>): StartedApp {
  const child = spawn(process.execPath, ["scripts/run-app.mjs", "start"], {
    cwd: root,
    env: cleanEnv({
      HOME: tmpdir(),
      NEXT_TELEMETRY_DISABLED: "1",
      HOSTNAME: "127.0.0.1",
      RATE_LIMIT_CHAT_PER_MINUTE: "0",
      RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: "0",
      RATE_LIMIT_NEW_IDENTITIES_PER_HOUR: "0",
      RATE_LIMIT_FORKS_PER_MINUTE: "0",
      RATE_LIMIT_IMPORTS_PER_HOUR: "0",
      // The tests tell workers apart by it (off in production unless asked for).
      WORKER_HEADER: "1",
      AUTH_MODE: "open",
      ...env,
    }),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const port = Number(env.PORT);
  const app: StartedApp = {
    child,
    port,
    base: `http://127.0.0.1:${port}`,
    output: () => output,
    exited: new Promise((resolve) => child.on("exit", resolve)),
    ready: () => waitFor(`http://127.0.0.1:${port}/api/health`, child, () => output, (response) => inGroup(Number(response.headers.get("x-worker")), child.pid)),
    stop: async () => {
      await stopGroup(child);
      started.delete(app);
    },
  };
  started.add(app);
  return app;
}

/**
 * Whether process `pid` (a worker, as its X-Worker header names it) belongs
 * to the process group `group` (an app started detached leads its own): an
 * answer on the app's port from any other process is not the app's.
 */
function inGroup(pid: number, group: number | undefined): boolean {
  // Without /proc (not Linux) there is no telling: the answer is taken as the app's.
  if (!existsSync("/proc/self/stat")) return true;
  if (!Number.isInteger(pid) || pid <= 0 || group === undefined) return false;
  try {
    // /proc/<pid>/stat: "pid (name) state ppid pgrp …"; the name may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === group;
  } catch {
    return false;
  }
}

/** Stops every app this file started and has not stopped yet. */
export async function stopApps(): Promise<void> {
  await Promise.all([...started].map((app) => app.stop()));
}

/** Waits until `condition` holds; fails after a minute with `what` and the app's output. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, output: () => string): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 100) {
    if (waited > 60_000) throw new Error(`${what} did not happen:\n${output()}`);
    await sleep(100);
  }
}

/** An HTTP answer: its status, the worker that sent it (X-Worker), its headers, and its body as it arrives. */
export interface Answer {
  status: number;
  worker: number;
  headers: IncomingMessage["headers"];
  /** The whole body (what is left of it), as text. */
  text(): Promise<string>;
  /** The body as a UI message stream: read on demand, kept as it grows. */
  stream: ReplyStream;
}

/**
 * One request over real HTTP. Without `agent`, on a connection of its own:
 * node:cluster hands each new connection to a worker, and a kept-alive one
 * would stay with the worker it went to first.
 */
export function send(
  port: number,
  method: string,
  at: string,
  options: { cookie?: string; json?: unknown; agent?: Agent } = {},
): Promise<Answer> {
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  if (body !== undefined) headers["content-type"] = "application/json";
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path: at, headers, agent: options.agent ?? false }, (response) => {
      response.setEncoding("utf8");
      const stream = new ReplyStream(response);
      resolve({
        status: response.statusCode!,
        worker: Number(response.headers["x-worker"]),
        headers: response.headers,
        text: async () => (await stream.toEnd()).text,
        stream,
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A response body read a piece at a time: what has come so far, and whether it ended or broke off. */
export class ReplyStream {
  text = "";
  ended = false;
  /** Set when the connection broke before the body ended (its server died). */
  broken?: Error;
  private readonly pieces: AsyncIterator<string>;

  constructor(response: IncomingMessage) {
    this.pieces = response[Symbol.asyncIterator]();
  }

  get chunks(): UIMessageChunk[] {
    return parseChunks(this.text);
  }

  get reply(): string {
    return replyText(this.chunks);
  }

  /** Reads until `done` holds of what came, or the body ends. */
  async until(done: (stream: ReplyStream) => boolean): Promise<this> {
    while (!this.ended && !done(this)) {
      try {
        const next = await this.pieces.next();
        if (next.done) this.ended = true;
        else this.text += next.value;
      } catch (error) {
        this.ended = true;
        this.broken = error as Error;
      }
    }
    return this;
  }

  /** Reads until the reply holds `words` words. */
  words(words: number): Promise<this> {
    return this.until((s) => s.reply.split(" ").length > words);
  }

  toEnd(): Promise<this> {
    return this.until(() => false);
  }
}

/**
 * A kept-alive connection that a worker other than `not` holds (an answer to
 * GET /api/health on it says which), so the next request on it goes to that
 * worker. Destroy the agent when done.
 */
export async function connectionAvoiding(port: number, not: number, tries = 50): Promise<{ agent: Agent; worker: number }> {
  for (let i = 0; i < tries; i++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const health = await send(port, "GET", "/api/health", { agent });
    await health.text();
    if (health.status === 200 && health.worker !== not) return { agent, worker: health.worker };
    agent.destroy();
  }
  throw new Error(`no connection reached a worker other than ${not} in ${tries} tries`);
}

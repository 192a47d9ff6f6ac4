import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parseChunks, replyText } from "./api";

// Tests that start where a user starts: a copy of the committed tree with none
// of this checkout's local state (.data, .env, .next, node_modules, test output).

const exec = promisify(execFile);
const repository = path.resolve(__dirname, "..", "..");

/** A new folder holding exactly the files of HEAD (`git archive`): what a fresh `git clone` gets. */
export async function cleanCopyOfHead(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `threadline-${label}-`));
  const { stdout: status } = await exec("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: repository });
  if (status.trim()) console.warn(`[${label}] the working tree has uncommitted changes; this test checks HEAD, as a fresh clone would`);
  await exec("sh", ["-c", `git archive --format=tar HEAD | tar -x -C "${dir}"`], { cwd: repository });
  return dir;
}

/**
 * Gives a copy this checkout's installed packages as a hard-linked tree, fast
 * and local. Next.js refuses a symlinked node_modules that points outside the
 * project; where hard links cannot be made (another filesystem), `npm ci`.
 */
export async function installPackages(dir: string): Promise<void> {
  try {
    await exec("cp", ["-al", path.join(repository, "node_modules"), path.join(dir, "node_modules")]);
  } catch {
    await exec("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  }
}

/** An environment with nothing of this machine's configuration: PATH, HOME and `vars`. */
export function cleanEnv(vars: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name !== "PATH" && name !== "HOME") delete env[name];
  return Object.assign(env, vars);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Polls `url` until it answers 200; fails with the app's output when the app exits or three minutes pass. */
export async function waitFor(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const seconds = 180;
  for (let i = 0; i < seconds * 2; i++) {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer 200 in ${seconds} s:\n${output()}`);
}

/**
 * Stops a process started with `detached: true` and everything it started
 * (npm, the start script, Next.js and its workers): SIGTERM to the group, then
 * waits until no member is left, so nothing writes into a folder being removed.
 */
export async function stopGroup(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid) return;
  const signal = (name: NodeJS.Signals | 0) => {
    try {
      process.kill(-child.pid!, name);
      return true;
    } catch {
      return false; // ESRCH: the group is empty
    }
  };
  if (!signal("SIGTERM")) return;
  for (let waited = 0; signal(0); waited += 100) {
    if (waited === 10_000) signal("SIGKILL");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens the app as a new visitor (the page sets the identity cookie) and returns the cookie. */
export async function visit(base: string): Promise<string> {
  const page = await fetch(`${base}/`);
  if (page.status !== 200) throw new Error(`GET / answered ${page.status}`);
  const cookie = page.headers.get("set-cookie");
  if (!cookie) throw new Error("GET / set no identity cookie");
  return cookie.split(";")[0];
}

/** Sends one message in a new thread and reads the streamed reply: its text and how many deltas carried it. */
export async function chatTurn(base: string, cookie: string, content: string) {
  const response = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ message: { id: `fresh-${Date.now()}`, content } }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST /api/chat answered ${response.status}: ${text}`);
  const chunks = parseChunks(text);
  return {
    contentType: response.headers.get("content-type") ?? "",
    threadId: response.headers.get("x-thread-id") ?? "",
    reply: replyText(chunks),
    deltas: chunks.filter((chunk) => chunk.type === "text-delta").length,
  };
}

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cp, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import ignore from "@balena/dockerignore";
import { parseChunks, replyText } from "./api";

// Tests that start where a user starts: a copy of the committed tree with none
// of this checkout's local state (.data, .env, .next, node_modules, test output),
// whether this checkout is a git clone or an unpacked source archive.

const exec = promisify(execFile);
const repository = path.resolve(__dirname, "..", "..");

/** True when this checkout is a git work tree of its own (not a folder inside some other repository). */
async function isWorkTree(): Promise<boolean> {
  try {
    const { stdout } = await exec("git", ["rev-parse", "--show-toplevel"], { cwd: repository });
    return (await realpath(stdout.trim())) === (await realpath(repository));
  } catch {
    return false; // not a repository, or no git at all
  }
}

/** What a clone would not hold: the repository's .gitignore, read the way git reads it, and .git itself. */
async function notCloned(): Promise<ReturnType<typeof ignore>> {
  const rules = (await readFile(path.join(repository, ".gitignore"), "utf8").catch(() => ""))
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const negated = line.startsWith("!");
      let pattern = (negated ? line.slice(1) : line).replace(/\/$/, "");
      // Without a slash inside, git matches a name at any depth; with one, from the top.
      pattern = pattern.includes("/") ? pattern.replace(/^\//, "") : `**/${pattern}`;
      return `${negated ? "!" : ""}${pattern}`;
    });
  return ignore().add([".git", ...rules]);
}

/**
 * A new folder holding what a fresh clone holds. In a git work tree, exactly
 * the files of HEAD (`git archive`); in a copy that is not one (a downloaded
 * source archive), its files as they are, less what .gitignore names
 * (installed packages, builds, local data, .env, test output).
 */
export async function freshCopy(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `threadline-${label}-`));
  try {
    await copyTreeInto(dir, label);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

async function copyTreeInto(dir: string, label: string): Promise<void> {
  if (await isWorkTree()) {
    const { stdout: status } = await exec("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: repository });
    if (status.trim()) console.warn(`[${label}] the working tree has uncommitted changes; this test checks HEAD, as a fresh clone would`);
    await exec("sh", ["-c", `git archive --format=tar HEAD | tar -x -C "${dir}"`], { cwd: repository });
    return;
  }
  console.warn(`[${label}] ${repository} is not a git work tree; this test copies its files as they are, less what .gitignore names`);
  const skip = await notCloned();
  await cp(repository, dir, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(repository, source);
      return relative === "" || !skip.ignores(relative.split(path.sep).join("/"));
    },
  });
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

/** Ports freePort() handed out in this process, so two asks in a row never get the same one. */
const handedOut = new Set<number>();

/**
 * The ports this process may hand out: TEST_PORT_RANGE ("3500-3599") when
 * set, for a machine whose ports are shared out among those who use it
 * (an eighth of it per worker); else a thousand of its own, by the Vitest or Playwright worker it is,
 * below the kernel's ephemeral range (32768 and up). A port the system
 * picked (listen on 0) was free only then: between its check and the app's
 * bind, seconds later, another test file running side by side could be
 * given the same one, and each would then talk to the other's server. Two
 * workers never share a range, and one worker runs one file at a time.
 */
function portRange(): { first: number; last: number } | undefined {
  const range = /^(\d+)-(\d+)$/.exec(process.env.TEST_PORT_RANGE ?? "");
  const vitest = Number(process.env.VITEST_POOL_ID);
  const playwright = Number(process.env.TEST_PARALLEL_INDEX);
  if (range) {
    // Shared out again among this run's workers, an eighth each.
    const first = Number(range[1]);
    const size = Math.floor((Number(range[2]) - first + 1) / 8);
    const slot = Number.isInteger(vitest) && vitest >= 1 ? (vitest - 1) % 8 : Number.isInteger(playwright) && playwright >= 0 ? playwright % 8 : undefined;
    if (slot === undefined || size < 1) return { first, last: Number(range[2]) };
    return slice(first, size, slot);
  }
  if (Number.isInteger(vitest) && vitest >= 1) return slice(20_000, 1_000, (vitest - 1) % 8);
  if (Number.isInteger(playwright) && playwright >= 0) return slice(28_000, 1_000, playwright % 4);
  return undefined;
}

const slice = (from: number, size: number, slot: number) => ({ first: from + slot * size, last: from + slot * size + size - 1 });

/** A port nothing listens on, from this process's range (portRange), or one the system picks outside a test worker. */
export async function freePort(): Promise<number> {
  const range = portRange();
  if (!range) return listenOnce(0);
  const { first, last } = range;
  const size = last - first + 1;
  // From a random place: a file that follows another in the same worker seldom tries the ports just let go.
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    const port = first + ((start + i) % size);
    if (handedOut.has(port)) continue;
    const free = await listenOnce(port).then(
      () => true,
      () => false,
    );
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${first}-${last}`);
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(port, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Polls `url` until it answers 200; fails with the app's output when the app exits or three minutes pass. */
export async function waitFor(url: string, child: ChildProcess, output: () => string, isOurs?: (response: Response) => boolean): Promise<void> {
  const seconds = 180;
  let stranger = false;
  for (let i = 0; i < seconds * 2; i++) {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.status === 200 && (!isOurs || isOurs(response))) return;
      stranger ||= response.status === 200;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const whose = stranger ? " from this app (another process answers on its port)" : "";
  throw new Error(`${url} did not answer 200${whose} in ${seconds} s:\n${output()}`);
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

/** Opens an AUTH_MODE=open app as a new visitor (the page sets the identity cookie) and returns the cookie. */
export async function visit(base: string): Promise<string> {
  const page = await fetch(`${base}/`);
  if (page.status !== 200) throw new Error(`GET / answered ${page.status}`);
  const cookie = page.headers.get("set-cookie");
  if (!cookie) throw new Error("GET / set no identity cookie");
  return cookie.split(";")[0];
}

/**
 * A new install's first step, as its first visitor takes it: the app sends
 * them to /sign-up, where they create the first account (its admin). Returns
 * the session cookie.
 */
export async function firstAccount(base: string): Promise<string> {
  const page = await fetch(`${base}/`);
  if (page.status !== 200 || new URL(page.url).pathname !== "/sign-up") throw new Error(`GET / should end on /sign-up, not ${page.url} (${page.status})`);
  if (!(await page.text()).includes("Create the first account")) throw new Error("/sign-up does not offer the first account");
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ name: "First Person", email: "first@example.org", password: "a long first password" }),
  });
  if (signUp.status !== 200) throw new Error(`the first sign-up answered ${signUp.status}: ${await signUp.text()}`);
  const cookie = signUp.headers.getSetCookie().find((set) => set.startsWith("threadline.session_token="));
  if (!cookie) throw new Error("the first sign-up set no session cookie");
  const me = await (await fetch(`${base}/api/me`, { headers: { cookie: cookie.split(";")[0] } })).json();
  if (me.user?.role !== "admin") throw new Error(`the first account should be the admin: ${JSON.stringify(me)}`);
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

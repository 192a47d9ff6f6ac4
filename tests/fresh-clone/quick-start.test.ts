import { spawn, type ChildProcess } from "node:child_process";
import { access, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chatTurn, cleanEnv, freePort, freshCopy, installPackages, stopGroup, firstAccount, waitFor } from "../support/fresh-copy";

// The README's quick start, literally: `npm run dev` in a fresh copy of the
// committed tree, with no .data/, no .env and no variables but PORT (so the
// test never collides with whatever else listens on 3000). Then the same copy
// as production: `npm run build && npm start`, still with nothing configured.
let copy: string | undefined;
let app: ChildProcess | undefined;

afterAll(async () => {
  await stopGroup(app);
  if (copy) await rm(copy, { recursive: true, force: true, maxRetries: 3 });
});

function npm(args: string[], dir: string, port?: number): { child: ChildProcess; output: () => string } {
  const child = spawn("npm", args, { cwd: dir, env: cleanEnv(port ? { PORT: String(port) } : {}), stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  return { child, output: () => output };
}

async function serve(script: "dev" | "start", dir: string, port: number): Promise<() => string> {
  const run = npm(["run", script], dir, port);
  app = run.child;
  await waitFor(`http://localhost:${port}/`, app, run.output);
  return run.output;
}

type Message = { role: string; content: string };

describe("the quick start on a fresh clone", () => {
  const port = freePort();
  const base = port.then((p) => `http://localhost:${p}`);
  let conversation: { cookie: string; threadId: string; messages: [string, string][] } | undefined;

  async function readBack(): Promise<void> {
    const { cookie, threadId, messages } = conversation!;
    const history = await fetch(`${await base}/api/threads/${threadId}/history`, { headers: { cookie } });
    expect(history.status).toBe(200);
    expect(((await history.json()).messages as Message[]).map((m) => [m.role, m.content])).toEqual(messages);
    const threads = await (await fetch(`${await base}/api/threads`, { headers: { cookie } })).json();
    expect(threads.threads.map((t: { id: string }) => t.id)).toEqual([threadId]);
  }

  // Two dev servers, each compiling the pages and routes it is asked for: 190 s on an idle machine, past 600 s beside the image's build and the bench.
  it("npm run dev serves the app on the embedded Postgres, streams a reply, and finds the thread again after a restart", { timeout: 900_000 }, async () => {
    copy = await freshCopy("quick-start");
    await expect(access(path.join(copy, ".data"))).rejects.toThrow();
    await expect(access(path.join(copy, ".env"))).rejects.toThrow();
    await installPackages(copy);

    const output = await serve("dev", copy, await port);
    expect(output()).toContain("using the embedded Postgres (PGlite)");
    expect(output()).toContain(path.join(copy, ".data", "pglite"));

    const cookie = await firstAccount(await base);
    const turn = await chatTurn(await base, cookie, "Remember the quick start");
    expect(turn.contentType).toContain("text/event-stream");
    expect(turn.reply).toContain('You wrote: "Remember the quick start"');
    expect(turn.deltas).toBeGreaterThan(1); // streamed word by word, not in one piece
    conversation = { cookie, threadId: turn.threadId, messages: [["user", "Remember the quick start"], ["assistant", turn.reply]] };

    await stopGroup(app);
    await serve("dev", copy, await port);
    await readBack();
  });

  // A production build of the whole app on the 2 cores it shares with the image test and the bench: 5 minutes alone, past 10 beside them.
  it("npm run build && npm start serves the same data from the standalone server", { timeout: 900_000 }, async () => {
    expect(conversation, "the dev run failed").toBeDefined();
    await stopGroup(app);
    const build = npm(["run", "build"], copy!);
    const code = await new Promise((resolve) => build.child.on("exit", resolve));
    expect(code, build.output()).toBe(0);

    const output = await serve("start", copy!, await port);
    expect(output()).toContain("using the embedded Postgres (PGlite)");
    await readBack();
    const page = await (await fetch(`${await base}/`)).text();
    const asset = /\/_next\/static\/[^"]+\.css/.exec(page)?.[0];
    expect(asset, "the page links its stylesheet").toBeDefined();
    expect((await fetch(`${await base}${asset}`)).status).toBe(200);
  });
});

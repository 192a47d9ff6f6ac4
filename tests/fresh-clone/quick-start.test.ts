import { spawn, type ChildProcess } from "node:child_process";
import { access, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chatTurn, cleanCopyOfHead, cleanEnv, freePort, installPackages, stopGroup, visit, waitFor } from "../support/fresh-copy";

// The README's quick start, literally: `npm run dev` in a fresh copy of the
// committed tree, with no .data/, no .env and no variables but PORT (so the
// test never collides with whatever else listens on 3000).
let copy: string | undefined;
let app: ChildProcess | undefined;

afterAll(async () => {
  await stopGroup(app);
  if (copy) await rm(copy, { recursive: true, force: true });
});

async function npmRunDev(dir: string, port: number): Promise<() => string> {
  app = spawn("npm", ["run", "dev"], { cwd: dir, env: cleanEnv({ PORT: String(port) }), stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  app.stdout!.on("data", (d) => (output += d));
  app.stderr!.on("data", (d) => (output += d));
  await waitFor(`http://localhost:${port}/`, app, () => output);
  return () => output;
}

describe("the quick start on a fresh clone", () => {
  it("npm run dev serves the app on the embedded Postgres, streams a reply, and finds the thread again after a restart", { timeout: 420_000 }, async () => {
    copy = await cleanCopyOfHead("quick-start");
    await expect(access(path.join(copy, ".data"))).rejects.toThrow();
    await expect(access(path.join(copy, ".env"))).rejects.toThrow();
    await installPackages(copy);

    const port = await freePort();
    const base = `http://localhost:${port}`;
    const output = await npmRunDev(copy, port);
    expect(output()).toContain("using the embedded Postgres (PGlite)");
    expect(output()).toContain(path.join(copy, ".data", "pglite"));

    const cookie = await visit(base);
    const turn = await chatTurn(base, cookie, "Remember the quick start");
    expect(turn.contentType).toContain("text/event-stream");
    expect(turn.reply).toContain('You wrote: "Remember the quick start"');
    expect(turn.deltas).toBeGreaterThan(1); // streamed word by word, not in one piece

    await stopGroup(app);
    await npmRunDev(copy, port);

    const history = await fetch(`${base}/api/threads/${turn.threadId}/history`, { headers: { cookie } });
    expect(history.status).toBe(200);
    const { messages } = await history.json();
    expect(messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["user", "Remember the quick start"],
      ["assistant", turn.reply],
    ]);
    const threads = await (await fetch(`${base}/api/threads`, { headers: { cookie } })).json();
    expect(threads.threads.map((t: { id: string }) => t.id)).toEqual([turn.threadId]);
  });
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "../support/db";
import { chatTurn, freePort, visit } from "../support/fresh-copy";
import { ensureProductionBuild, send, startApp, stopApps, until } from "../support/production-app";

// `npm start` on every core: the start script's cluster of server.js workers,
// on the production build in .next/standalone (built here when there is none;
// after changing the app, `npm run build` first, as for `npm start`).

afterEach(stopApps);
beforeAll(ensureProductionBuild, 900_000);

/** The worker that answered GET /api/health, on a connection of its own. */
async function worker(port: number): Promise<{ status: number; pid: number }> {
  const answer = await send(port, "GET", "/api/health");
  await answer.text();
  return { status: answer.status, pid: answer.worker };
}

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

describe("npm start on every core", () => {
  it("serves from two workers, turns included, and replaces one that is killed", { timeout: 240_000 }, async () => {
    const port = await freePort();
    const run = startApp({ PORT: String(port), DATABASE_URL: TEST_DATABASE_URL, WEB_CONCURRENCY: "2" });
    const base = run.base;
    await run.ready();

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
        const history = await send(port, "GET", `/api/threads/${turn.threadId}/history`, { cookie });
        expect(history.status).toBe(200);
        expect(JSON.parse(await history.text()).messages.map((m: { content: string }) => m.content)).toEqual([`Turn ${n} on every core`, turn.reply]);
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
    const run = startApp({ PORT: String(await freePort()), DATABASE_URL: TEST_DATABASE_URL, WEB_CONCURRENCY: value });
    expect(await run.exited).toBe(1);
    expect(run.output().trim()).toBe(`[threadline] WEB_CONCURRENCY must be a whole number from 1 to 256, not "${value}".`);
  });

  it("stops on a bad setting with its one line, said once though two workers were asked for", { timeout: 120_000 }, async () => {
    const run = startApp({ PORT: String(await freePort()), DATABASE_URL: TEST_DATABASE_URL, WEB_CONCURRENCY: "2", COMPACTION_TARGET_MESSAGES: "abc" });
    expect(await run.exited).not.toBe(0);
    const line = 'COMPACTION_TARGET_MESSAGES must be a whole number from 2 to 999999, not "abc".';
    expect(run.output().split(line), run.output()).toHaveLength(2);
    expect(run.output()).not.toMatch(/^\s+at /m);
  });

  it("runs one worker on the embedded Postgres, and says why", { timeout: 120_000 }, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "threadline-one-worker-"));
    try {
      const port = await freePort();
      const run = startApp({ PORT: String(port), EMBEDDED_DB_DIR: dataDir, WEB_CONCURRENCY: "2" });
      await run.ready();
      expect(run.output()).toContain("One server worker, not 2: the embedded Postgres is one backend");
      const seen = await workersUntil(port, () => false, 6);
      expect(seen.size).toBe(1);
      await run.stop();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SLOW_REPLY, startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { mockModelEnv } from "../support/app-env";
import { TEST_DATABASE_URL, testPool } from "../support/db";
import { freePort, visit } from "../support/fresh-copy";
import { connectionAvoiding, ensureProductionBuild, isAlive, send, startApp, stopApps, until, type StartedApp } from "../support/production-app";

// Turns on `npm start` with two server workers: both run turns, a Stop taken
// by the worker that does not run the turn ends it, the other worker resumes
// a running reply for a client that joins late, and a worker killed in
// the middle of a reply loses no message it had taken; its turn dies with it,
// and its replacement, or the other worker, answers that message once it is
// sent again. Every
// response names its worker (X-Worker). Skipped on the embedded database,
// which runs one worker.

const LEASE_SECONDS = 3;
const stoppedChunk = { type: "data-status", data: { status: "stopped" }, transient: true };

describe.skipIf(inject("embeddedDatabase"))("turns on two server workers", () => {
  let mock: MockModelServer;
  let app: StartedApp;
  let cookie: string;
  const db = testPool();

  beforeAll(async () => {
    await ensureProductionBuild();
    mock = await startMockModelServer({ port: await freePort() });
    app = startApp({
      PORT: String(await freePort()),
      DATABASE_URL: TEST_DATABASE_URL,
      WEB_CONCURRENCY: "2",
      ...mockModelEnv(mock.url),
      TITLE_TIMEOUT_SECONDS: "0",
      // A worker that is alive but cut off from the database loses its turns this soon.
      TURN_LEASE_SECONDS: String(LEASE_SECONDS),
    });
    await app.ready();
    cookie = await visit(app.base);
  }, 900_000);

  afterAll(async () => {
    await stopApps();
    await mock?.close();
    await db.end();
  });

  const msg = (content: string) => ({ id: randomUUID(), content });
  /** POST /api/chat on a connection of its own: whichever worker node:cluster hands it to. */
  const chat = (body: unknown) => send(app.port, "POST", "/api/chat", { cookie, json: body });
  const stored = async (threadId: string) =>
    (await db.query<{ message_id: string; kind: string; content: string; status: string }>(
      "SELECT message_id, kind, content, status FROM messages WHERE thread_id = $1 ORDER BY seq",
      [threadId],
    )).rows;
  /** The model requests that answered `content` (the mock keeps every request's body). */
  const modelCallsFor = (content: string) =>
    mock.requests.filter((body) => JSON.stringify((body as { messages?: unknown }).messages ?? []).includes(content)).length;

  it("both workers run turns", { timeout: 60_000 }, async () => {
    const ran = new Set<number>();
    for (let n = 1; n <= 20 && ran.size < 2; n++) {
      const turn = await chat({ message: msg(`turn ${n} on some worker`) });
      expect(turn.status).toBe(200);
      await turn.stream.toEnd();
      expect(turn.stream.reply).toContain(`You said: "turn ${n} on some worker"`);
      ran.add(turn.worker);
    }
    expect(ran.size, app.output()).toBe(2);
    expect(ran.has(app.child.pid!)).toBe(false); // workers, not the primary
  });

  it("a Stop taken by the worker that does not run the turn ends it, keeping what was written", { timeout: 60_000 }, async () => {
    const running = await chat({ message: msg("[[slow]] stopped by the other worker") });
    expect(running.status).toBe(200);
    const threadId = String(running.headers["x-thread-id"]);
    await running.stream.words(3);

    const other = await connectionAvoiding(app.port, running.worker);
    try {
      const stopped = await send(app.port, "POST", `/api/threads/${threadId}/stop`, { cookie, agent: other.agent });
      expect(stopped.worker).toBe(other.worker);
      expect(stopped.worker).not.toBe(running.worker);
      expect(stopped.status).toBe(202);
      expect(JSON.parse(await stopped.text())).toEqual({ stopped: true });
    } finally {
      other.agent.destroy();
    }

    await running.stream.toEnd();
    expect(running.stream.chunks).toContainEqual(stoppedChunk);
    const partial = running.stream.reply;
    expect(partial.length).toBeGreaterThan(0);
    expect(SLOW_REPLY.startsWith(partial) && partial !== SLOW_REPLY).toBe(true);
    expect((await stored(threadId)).filter((m) => m.kind === "assistant")).toEqual([expect.objectContaining({ content: partial, status: "stopped" })]);
  });

  it("a worker killed mid-reply loses no message it took; a new worker takes its place; its turn is dead, and sent again, the message is answered once", { timeout: 120_000 }, async () => {
    const message = msg("[[slow]] cut off when its worker is killed");
    const running = await chat({ message });
    expect(running.status).toBe(200); // taken: the user's message is stored before the reply streams
    const threadId = String(running.headers["x-thread-id"]);
    const killed = running.worker;
    await running.stream.words(3);
    const other = await connectionAvoiding(app.port, killed);
    other.agent.destroy();
    const survivor = other.worker;

    process.kill(killed, "SIGKILL");
    await running.stream.toEnd();
    expect(running.stream.chunks.some((chunk) => chunk.type === "finish")).toBe(false);
    expect((await stored(threadId)).filter((m) => m.kind === "user")).toEqual([
      expect.objectContaining({ message_id: message.id, content: message.content }),
    ]);

    await until(() => app.output().includes(`server worker ${killed} was killed by SIGKILL`), "the primary noticing the dead worker", app.output);
    await until(
      async () => {
        const health = await send(app.port, "GET", "/api/health");
        await health.text();
        return health.status === 200 && health.worker !== survivor;
      },
      "a new worker answering",
      app.output,
    );
    expect(isAlive(killed)).toBe(false);

    // The dead worker's turn no longer holds the message: its session, and the lock it held, ended with it.
    await until(
      async () => (await db.query("SELECT 1 FROM turns WHERE message_id = $1 AND status = 'running' AND NOT threadline_turn_running(turns)", [message.id])).rowCount === 1,
      "the dead worker's turn ending",
      app.output,
    );
    const callsBefore = modelCallsFor(message.content);
    const again = await chat({ threadId, message });
    expect(again.status).toBe(200);
    await again.stream.toEnd();
    expect(again.stream.reply).toBe(SLOW_REPLY);
    expect(modelCallsFor(message.content)).toBe(callsBefore + 1);

    const rows = await stored(threadId);
    expect(rows.filter((m) => m.kind === "user").map((m) => m.message_id)).toEqual([message.id]);
    expect(rows.filter((m) => m.kind === "assistant")).toEqual([expect.objectContaining({ content: SLOW_REPLY, status: "complete" })]);

    // Answered: once more, the stored reply comes back and the model is not asked again.
    const replayed = await chat({ threadId, message });
    await replayed.stream.toEnd();
    expect(replayed.stream.reply).toBe(SLOW_REPLY);
    expect(modelCallsFor(message.content)).toBe(callsBefore + 1);
    expect(await stored(threadId)).toEqual(rows);
  });

  it("a reply one worker writes is resumed through the other: the same reply, to its end", { timeout: 60_000 }, async () => {
    const running = await chat({ message: msg("[[slow]] resumed through the other worker") });
    expect(running.status).toBe(200);
    const threadId = String(running.headers["x-thread-id"]);
    await running.stream.words(3);

    const other = await connectionAvoiding(app.port, running.worker);
    try {
      const resumed = await send(app.port, "GET", `/api/threads/${threadId}/stream`, { cookie, agent: other.agent });
      expect(resumed.worker).toBe(other.worker);
      expect(resumed.status).toBe(200);
      await Promise.all([running.stream.toEnd(), resumed.stream.toEnd()]);
      expect(running.stream.reply).toBe(SLOW_REPLY);
      expect(resumed.stream.reply).toBe(SLOW_REPLY);
    } finally {
      other.agent.destroy();
    }
  });
});

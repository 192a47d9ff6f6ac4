import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { appServers, expectAnsweredOnceMore, modelCallsFor, storedMessages } from "../support/app-servers";
import { blockPool } from "../support/db";
import { connectionAvoiding, isAlive, send, until, type StartedApp } from "../support/production-app";

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
  const db = blockPool();
  const servers = appServers({
    count: 1,
    env: {
      WEB_CONCURRENCY: "2",
      // A worker that is alive but cut off from the database loses its turns this soon.
      TURN_LEASE_SECONDS: String(LEASE_SECONDS),
    },
  });
  let app: StartedApp;
  beforeAll(() => void ([app] = servers().apps));

  const msg = (content: string) => ({ id: randomUUID(), content });
  /** POST /api/chat on a connection of its own: whichever worker node:cluster hands it to. */
  const chat = (body: unknown) => send(app.port, "POST", "/api/chat", { cookie: servers().cookie, json: body });
  const stored = (threadId: string) => storedMessages(db, threadId);

  /** A slow reply some worker is writing in a new thread, a few words in, and a kept-alive connection to the other worker. */
  async function slowReplyAndTheOtherWorker(content: string) {
    const running = await chat({ message: msg(`[[slow]] ${content}`) });
    expect(running.status).toBe(200);
    const threadId = String(running.headers["x-thread-id"]);
    await running.stream.words(3);
    return { running, threadId, other: await connectionAvoiding(app.port, running.worker) };
  }

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
    const { running, threadId, other } = await slowReplyAndTheOtherWorker("stopped by the other worker");
    try {
      const stopped = await send(app.port, "POST", `/api/threads/${threadId}/stop`, { cookie: servers().cookie, agent: other.agent });
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
    const callsBefore = modelCallsFor(servers().mock, message.content);
    const rows = await expectAnsweredOnceMore(await chat({ threadId, message }), { db, mock: servers().mock, threadId, message, callsBefore });

    // Answered: once more, the stored reply comes back and the model is not asked again.
    const replayed = await chat({ threadId, message });
    await replayed.stream.toEnd();
    expect(replayed.stream.reply).toBe(SLOW_REPLY);
    expect(modelCallsFor(servers().mock, message.content)).toBe(callsBefore + 1);
    expect(await stored(threadId)).toEqual(rows);
  });

  it("a reply one worker writes is resumed through the other: the same reply, to its end", { timeout: 60_000 }, async () => {
    const { running, threadId, other } = await slowReplyAndTheOtherWorker("resumed through the other worker");
    try {
      const resumed = await send(app.port, "GET", `/api/threads/${threadId}/stream`, { cookie: servers().cookie, agent: other.agent });
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

import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { appServers, storedMessages } from "../support/app-servers";
import { TEST_DATABASE_URL } from "../support/db";
import { visit } from "../support/fresh-copy";
import { send, type Answer, type StartedApp } from "../support/production-app";

// Two app servers, each `npm start` with one worker, on one database that
// neither has seen before, started at the same moment; a browser's requests
// reach either. One turn per thread, Stop and resuming hold between them:
// what one server runs, the other refuses a second message for, stops, and
// streams to a client that joins late. On the Inngest runtime the stand-in
// calls the two servers' serve endpoints in turn, so a turn's steps run on
// both, as behind a balancer.
// The embedded database is one process's by design: skipped there.

const stoppedChunk = { type: "data-status", data: { status: "stopped" }, transient: true };

describe.skipIf(inject("embeddedDatabase")).each(["inline", "inngest"] as const)("two app servers on one database (%s runtime)", (runtime) => {
  const fresh = (() => {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `${url.pathname}_two_servers_${runtime}`;
    return url.toString();
  })();
  /** The serve requests the stand-in sent to each server, by port. */
  const served = new Map<number, number>();
  // The database is new to the servers: dropped before they start (and after the block).
  beforeAll(() => dropDatabase(fresh));
  const db = new pg.Pool({ connectionString: fresh, max: 2 });
  // The database is dropped WITH (FORCE) once the pool has ended: a connection still closing then hears the
  // server end it (57P01), which the pool would otherwise throw as an uncaught error.
  db.on("error", () => {});
  // Registered before the servers, run after they stop: hooks after the tests run as a stack.
  afterAll(async () => {
    await db.end();
    await dropDatabase(fresh);
  });
  const servers = appServers({
    count: 2,
    database: fresh,
    // Renewed every 200 s: a Stop that ends a reply within a test came by NOTIFY.
    env: { TURN_LEASE_SECONDS: "600" },
    inngest: runtime === "inngest" ? { appFetch: alternately, retryDelayMs: 10 } : undefined,
  });
  let a: StartedApp;
  let b: StartedApp;
  beforeAll(() => void ([a, b] = servers().apps));

  /** The stand-in's way to the serve endpoint: each request to the next server, over HTTP. */
  function alternately(ports: number[]) {
    let next = 0;
    return async (request: Request) => {
      const port = ports[next++ % ports.length];
      served.set(port, (served.get(port) ?? 0) + 1);
      const url = new URL(request.url);
      const body = request.method === "GET" ? undefined : await request.text();
      return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
    };
  }

  const chat = (app: StartedApp, cookie: string, body: unknown) => send(app.port, "POST", "/api/chat", { cookie, json: body });
  const stop = (app: StartedApp, cookie: string, threadId: string) => send(app.port, "POST", `/api/threads/${threadId}/stop`, { cookie });
  /** GET /api/threads/:id/stream: the thread's running reply, resumed. */
  const resume = (app: StartedApp, cookie: string, threadId: string) => send(app.port, "GET", `/api/threads/${threadId}/stream`, { cookie });
  const msg = (content: string) => ({ id: randomUUID(), content });

  /** A slow reply that server A is writing in a new thread, a few words in. */
  async function slowReplyOnA(cookie: string) {
    const running = await chat(a, cookie, { message: msg("[[slow]] a long answer, written by server A") });
    expect(running.status).toBe(200);
    const threadId = String(running.headers["x-thread-id"]);
    await running.stream.words(3);
    return { running, threadId };
  }

  const stored = (threadId: string) => storedMessages(db, threadId);

  it("both start at once on a database that does not exist yet: one migrates it, the other waits for it and finds nothing to do", async () => {
    const said = [a.output(), b.output()];
    expect(said.filter((out) => out.includes("[threadline] applied migrations:")), said.join("\n---\n")).toHaveLength(1);
    expect(said.filter((out) => out.includes("[threadline] database schema is up to date")), said.join("\n---\n")).toHaveLength(1);
    const { rows } = await db.query<{ n: string; distinct_n: string }>("SELECT count(*) AS n, count(DISTINCT name) AS distinct_n FROM pgmigrations");
    expect(Number(rows[0].n)).toBeGreaterThan(0);
    expect(rows[0].n).toBe(rows[0].distinct_n);
  });

  it("while A writes a reply, B refuses a second message in the thread as A does; B's Stop ends A's reply, which keeps what it wrote", { skip: runtime !== "inline", timeout: 60_000 }, async () => {
    const cookie = await visit(a.base); // the identity one server minted holds on the other
    const { running, threadId } = await slowReplyOnA(cookie);

    const second = { threadId, message: msg("impatient: a second message while the reply runs") };
    const [onB, onA] = [await chat(b, cookie, second), await chat(a, cookie, second)];
    const refusal = { status: onA.status, body: JSON.parse(await onA.text()) };
    expect(refusal.status).toBe(409);
    expect(refusal.body.error.code).toBe("conflict:turn_in_progress");
    expect({ status: onB.status, body: JSON.parse(await onB.text()) }).toEqual(refusal);
    expect((await stored(threadId)).map((m) => m.message_id)).not.toContain(second.message.id);

    await stopFromB(cookie, threadId, running);
    await thenAShortOne(cookie, threadId);
  });

  // Durable turns queue on their thread (the function's concurrency key, which
  // the Inngest server keeps for every app server): a second message waits.
  it("while A writes a reply, a second message sent to B waits for it as one sent to A does, and is answered once; B's Stop ends A's reply", { skip: runtime !== "inngest", timeout: 60_000 }, async () => {
    const cookie = await visit(a.base);
    const { running, threadId } = await slowReplyOnA(cookie);

    const second = { threadId, message: msg("impatient: a second message while the reply runs") };
    // Their answers begin once their run does: after the first reply.
    const waiting = [chat(b, cookie, second), chat(a, cookie, second)];
    await expect.poll(() => servers().standin!.events.filter((e) => (e.data.message as { id?: string } | undefined)?.id === second.message.id).length).toBe(2);
    await stopFromB(cookie, threadId, running);

    const [onB, onA] = await Promise.all(waiting);
    expect([onB.status, onA.status]).toEqual([200, 200]);
    await Promise.all([onB.stream.toEnd(), onA.stream.toEnd()]);
    expect(onB.stream.reply).toContain('You said: "impatient: a second message while the reply runs"');
    expect(onA.stream.reply).toBe(onB.stream.reply);
    await servers().standin!.idle();
    expect((await stored(threadId)).map((m) => [m.kind, m.status])).toEqual([
      ["user", "complete"],
      ["assistant", "stopped"],
      ["user", "complete"],
      ["assistant", "complete"],
    ]);
    expect((await stored(threadId))[2].message_id).toBe(second.message.id);
    await thenAShortOne(cookie, threadId);
  });

  /** B's Stop ends the reply A is writing: what A streamed up to it is what is stored, marked stopped. */
  async function stopFromB(cookie: string, threadId: string, running: Answer) {
    const stopped = await stop(b, cookie, threadId);
    expect(stopped.status).toBe(202);
    expect(JSON.parse(await stopped.text())).toEqual({ stopped: true });

    await running.stream.toEnd();
    expect(running.stream.broken).toBeUndefined();
    expect(running.stream.chunks).toContainEqual(stoppedChunk);
    const partial = running.stream.reply;
    expect(partial.length).toBeGreaterThan(0);
    expect(SLOW_REPLY.startsWith(partial) && partial !== SLOW_REPLY).toBe(true);
    await expect.poll(async () => (await stored(threadId)).find((m) => m.kind === "assistant")).toEqual(expect.objectContaining({ content: partial, status: "stopped" }));
  }

  /** The thread takes a new message again, on either server. */
  async function thenAShortOne(cookie: string, threadId: string) {
    const next = await chat(b, cookie, { threadId, message: msg("and now a short one") });
    expect(next.status).toBe(200);
    await next.stream.toEnd();
    expect(next.stream.reply).toContain('You said: "and now a short one"');
  }

  it("another identity's Stop through B is a 404, as for a thread that does not exist, and the reply on A runs to its end", { timeout: 60_000 }, async () => {
    const cookie = await visit(a.base);
    const stranger = await visit(b.base);
    const { running, threadId } = await slowReplyOnA(cookie);

    const refused = await stop(b, stranger, threadId);
    const unknown = await stop(b, stranger, randomUUID());
    expect(refused.status).toBe(404);
    expect({ status: refused.status, body: await refused.text() }).toEqual({ status: unknown.status, body: await unknown.text() });
    const { rows } = await db.query("SELECT stop_requested_turn FROM turns WHERE thread_id = $1", [threadId]);
    expect(rows).toEqual([{ stop_requested_turn: null }]);

    await running.stream.toEnd();
    expect(running.stream.chunks).not.toContainEqual(stoppedChunk);
    expect(running.stream.reply).toBe(SLOW_REPLY);
    expect((await stored(threadId)).filter((m) => m.kind === "assistant")).toEqual([expect.objectContaining({ content: SLOW_REPLY, status: "complete" })]);
  });

  it("a reply running on A is resumed through B: the reply A streams and stores, to its end; 404 to another identity, 204 once the thread is idle", { timeout: 60_000 }, async () => {
    const cookie = await visit(a.base);
    const stranger = await visit(b.base);
    const { running, threadId } = await slowReplyOnA(cookie);

    const resumed = await resume(b, cookie, threadId);
    expect(resumed.status).toBe(200);
    expect(resumed.headers["x-thread-id"]).toBe(threadId);
    const foreign = await resume(b, stranger, threadId);
    expect(foreign.status).toBe(404);
    await foreign.text();

    await Promise.all([running.stream.toEnd(), resumed.stream.toEnd()]);
    expect(running.stream.reply).toBe(SLOW_REPLY);
    expect(resumed.stream.reply).toBe(SLOW_REPLY);
    expect(resumed.stream.chunks.at(-1)).toEqual(running.stream.chunks.at(-1));
    expect((await stored(threadId)).filter((m) => m.kind === "assistant")).toEqual([expect.objectContaining({ content: SLOW_REPLY, status: "complete" })]);

    const idle = await resume(b, cookie, threadId);
    expect(idle.status).toBe(204);
    expect(await idle.text()).toBe("");
  });

  it.runIf(runtime === "inngest")("the durable turns' steps ran on both servers, each run to its end", async () => {
    await servers().standin!.idle();
    expect([...served.values()].filter((n) => n > 0)).toHaveLength(2);
    expect(servers().standin!.runs.filter((run) => run.status !== "completed")).toEqual([]);
    // Checkpointed, as the SDK runs them by default: each turn reported its steps to the stand-in.
    const turns = servers().standin!.runs.filter((run) => run.fnId === "threadline-chat-turn");
    expect(turns.every((run) => run.mode === "checkpointed" && run.checkpoints.length > 0)).toBe(true);
  });
});

async function dropDatabase(url: string): Promise<void> {
  const server = new URL(url);
  const name = server.pathname.slice(1);
  server.pathname = "/postgres";
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

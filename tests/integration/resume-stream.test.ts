import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { ChatEngine } from "@/lib/client/chat-engine";
import { NotificationListener } from "@/lib/live/listener";
import { PostgresLiveStore } from "@/lib/live/postgres-progress";
import { ASK_CHANNEL, LiveBus, PROGRESS_CHANNEL } from "@/lib/live/bus";
import { INTERRUPTED, TurnResume, type PlacedChunk } from "@/lib/live/turn-resume";
import { params, parseChunks, parseEvents, readSome, readUntil, replyText, request, visitor } from "../support/api";
import { progressIdsCrossADigit } from "../support/progress";
import { TEST_DATABASE_URL } from "../support/db";
import * as chat from "@/app/api/chat/route";
import * as streamRoute from "@/app/api/threads/[id]/stream/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import { integrationApp } from "../support/integration";

// A reply in progress, joined late: GET /api/threads/:id/stream on the inline
// runtime, its route handler in-process, the turn writing turn_progress as the
// mock model streams [[slow]] (about ten seconds).
describe("resuming a running reply (inline runtime)", () => {
  const t = integrationApp();

  const msg = (content: string) => ({ id: randomUUID(), content });
  const send = (body: unknown) => chat.POST(request("/api/chat", { method: "POST", cookie: t.me.cookie, json: body }), undefined);
  const resume = (threadId: string, init: { cookie?: string; headers?: Record<string, string>; query?: string } = {}) =>
    streamRoute.GET(request(`/api/threads/${threadId}/stream${init.query ?? ""}`, { cookie: init.cookie ?? t.me.cookie, headers: init.headers }), params(threadId));
  const storedReply = async (threadId: string) =>
    (await t.pool.query<{ content: string }>("SELECT content FROM messages WHERE thread_id = $1 AND kind = 'assistant' ORDER BY seq", [threadId])).rows.map(
      (r) => r.content,
    );
  /** The turn's progress rows, in order. */
  const progressOf = async (threadId: string) =>
    (
      await t.pool.query<{ id: string; chunks: { attempt: number; step?: string; chunk: { type: string } }[]; final: boolean }>(
        `SELECT p.id::text AS id, p.chunks::json AS chunks, p.final FROM turn_progress p JOIN turns t ON t.turn_id = p.turn_id
          WHERE t.thread_id = $1 ORDER BY p.id`,
        [threadId],
      )
    ).rows;

  /**
   * A slow reply under way, a few words of it streamed already (and, nobody
   * having asked for it, none written to turn_progress); its POST read to the
   * end meanwhile.
   */
  async function slowReply(words = 3) {
    await progressIdsCrossADigit(t.pool);
    const response = await send({ message: msg("[[slow]] follow me after a reload") });
    expect(response.status).toBe(200);
    const threadId = response.headers.get("x-thread-id")!;
    const { rest: posted } = await readSome(response, (text) => replyText(parseChunks(text)).split(" ").length > words);
    return { threadId, posted };
  }

  it("streams what was written so far, then the rest live: the same reply the POST streamed and the thread stored, once", async () => {
    const { threadId, posted } = await slowReply();
    // Nobody has asked for this reply yet: its runner keeps it in memory.
    expect(await progressOf(threadId)).toEqual([]);
    const response = await resume(threadId);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("x-thread-id")).toBe(threadId);
    expect(response.headers.get("cache-control")).toBe("no-store, no-transform");
    // Resumed before the reply was finished: the turn was still running when it began.
    const raw = await response.text();
    const events = parseEvents(raw);
    const chunks = events.map((e) => e.chunk);
    const original = parseChunks(await posted);

    expect(replyText(chunks)).toBe(SLOW_REPLY);
    expect(await storedReply(threadId)).toEqual([SLOW_REPLY]);
    // Chunk for chunk what the POST streamed (the inline turn's chunks are not restamped).
    expect(chunks).toEqual(original);
    expect(chunks[0]).toMatchObject({ type: "data-thread", data: { threadId } });
    expect(chunks.filter((c) => c.type === "start")).toHaveLength(1);
    expect(chunks.at(-1)).toMatchObject({ type: "finish" });
    expect(raw.trimEnd().endsWith("data: [DONE]")).toBe(true);
    // Every event has its place, in order.
    const places = events.map((e) => e.id!.split(".").map(BigInt));
    for (let i = 1; i < places.length; i++) {
      const [row, index] = places[i];
      const [prevRow, prevIndex] = places[i - 1];
      expect(row > prevRow || (row === prevRow && index > prevIndex)).toBe(true);
    }

    const rows = await progressOf(threadId);
    expect(rows.at(-1)!.final).toBe(true);
    expect(rows.filter((r) => r.final)).toHaveLength(1);
    expect(rows.every((r) => r.chunks.every((m) => m.attempt === 0))).toBe(true);
    // Written in batches, not a row per chunk: the first holds everything streamed before the ask.
    expect(rows.length).toBeLessThan(chunks.length);
    expect(replyText(rows[0].chunks.map((m) => m.chunk as never)).split(" ").length).toBeGreaterThan(3);
  }, 40_000);

  it("keeps the progress of a reply that holds a NUL (JSON writes it \\u0000, which jsonb would refuse)", async () => {
    const store = new PostgresLiveStore(t.pool);
    const turnId = randomUUID();
    const messages = [{ attempt: 0, chunk: { type: "text-delta" as const, id: "t", delta: "a \u0000 b, and a literal \\u0000" } }];
    await store.writeProgress({ turnId, messages, final: true, sweep: false }, { channel: PROGRESS_CHANNEL, payload: "{}" });
    expect((await store.readProgress(turnId, "0")).map((row) => row.chunks)).toEqual([messages]);
  });

  it("a reply that ended before anyone asked for it ends the resumed stream at once, empty: the page reads the stored reply", async () => {
    const response = await send({ message: msg("over before the ask") });
    const threadId = response.headers.get("x-thread-id")!;
    await response.text();
    // Asked for just after it ended (a reader that found it running a moment before): its runner answers with its end alone.
    const turnId = (await t.pool.query<{ turn_id: string }>("SELECT turn_id FROM turns WHERE thread_id = $1", [threadId])).rows[0].turn_id;
    t.app.askForProgress(turnId);
    await expect.poll(async () => (await progressOf(threadId)).map((r) => [r.chunks.length, r.final])).toEqual([[0, true]]);
  });

  it("goes on after the event a client names (Last-Event-ID, or ?after=) without repeating or skipping a chunk", async () => {
    const { threadId, posted } = await slowReply();
    const first = await resume(threadId);
    const read = await readUntil(first, (text) => replyText(parseChunks(text)).split(" ").length > 5);
    await read.reader.cancel();
    const before = parseEvents(read.text);
    const lastId = before.at(-1)!.id!;

    const [second, third] = await Promise.all([
      resume(threadId, { headers: { "last-event-id": lastId } }),
      resume(threadId, { query: `?after=${lastId}` }),
    ]);
    expect(second.status).toBe(200);
    const [after, afterByQuery] = await Promise.all([second.text(), third.text()]).then((texts) => texts.map(parseEvents));
    expect(afterByQuery).toEqual(after);
    expect(after.length).toBeGreaterThan(0);
    const joined = [...before, ...after];
    expect(new Set(joined.map((e) => e.id)).size).toBe(joined.length);
    const original = parseChunks(await posted);
    expect(joined.map((e) => e.chunk)).toEqual(original);
    expect(replyText(joined.map((e) => e.chunk))).toBe(SLOW_REPLY);
  }, 40_000);

  it("ends with an error, not as if whole, when the turn's runner went away mid-reply (its lease ran out, no end written)", async () => {
    const first = await send({ message: msg("a thread to break a reply in") });
    const threadId = first.headers.get("x-thread-id")!;
    await first.text();
    // A runner that wrote part of a reply and died: its turn holds a lease that runs out, its rows have no end.
    const turnId = randomUUID();
    await t.pool.query(
      `INSERT INTO turns (owner, message_id, thread_id, turn_id, status, lease_until) VALUES ($1, $2, $3, $4, 'running', now() + interval '1 second')`,
      [t.me.id, randomUUID(), threadId, turnId],
    );
    const partial = [
      { attempt: 0, chunk: { type: "text-start", id: "t" } },
      { attempt: 0, chunk: { type: "text-delta", id: "t", delta: "half a rep" } },
    ];
    await t.pool.query("INSERT INTO turn_progress (turn_id, chunks) VALUES ($1, $2)", [turnId, JSON.stringify(partial)]);

    const response = await resume(threadId);
    expect(response.status).toBe(200);
    const chunks = parseEvents(await response.text()).map((e) => e.chunk);
    expect(replyText(chunks)).toBe("half a rep");
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: INTERRUPTED });
    expect(chunks.some((c) => c.type === "finish")).toBe(false);
  }, 20_000);

  it("a malformed place is a 400", async () => {
    const bad = await resume(randomUUID(), { query: "?after=nonsense" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe("bad_request:stream_position");
  });

  it("answers 204 when no reply is being written in the thread", async () => {
    const response = await send({ message: msg("a quick one") });
    const threadId = response.headers.get("x-thread-id")!;
    await response.text();
    const idle = await resume(threadId);
    expect(idle.status).toBe(204);
    expect(await idle.text()).toBe("");
  });

  it("answers 404, as for any thread not the caller's, to another identity, an unknown thread and a malformed id", async () => {
    const { threadId, posted } = await slowReply(1);
    const stranger = await visitor();
    const foreign = await threadRoute.GET(request(`/api/threads/${threadId}`, { cookie: stranger.cookie }), params(threadId));
    expect(foreign.status).toBe(404);
    const notFound = await foreign.json();
    for (const [id, cookie] of [
      [threadId, stranger.cookie],
      [randomUUID(), t.me.cookie],
      ["not-a-thread", t.me.cookie],
    ] as const) {
      const response = await resume(id, { cookie });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(notFound);
    }
    await posted;
  }, 40_000);

  it.skipIf(inject("embeddedDatabase"))(
    "a resumer on another process gets the rest live through NOTIFY (its own poll set out of reach)",
    async () => {
      const { threadId, posted } = await slowReply();
      // The other process: its own pool, bus and listener; it reads only when a NOTIFY wakes it.
      const theirPool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
      const theirBus = new LiveBus();
      const listener = new NotificationListener(TEST_DATABASE_URL, { [PROGRESS_CHANNEL]: (payload) => theirBus.hearProgress(payload) });
      const theirStore = new PostgresLiveStore(theirPool);
      // Their ask reaches the runner only as a NOTIFY.
      const ask = (turnId: string) => void theirStore.announce({ channel: ASK_CHANNEL, payload: theirBus.turnNotice(turnId) });
      try {
        await listener.ready();
        const stream = await new TurnResume(() => theirStore, () => theirBus, ask, 10 * 60_000).open(t.me.id, threadId);
        expect(stream).not.toBeNull();
        const got: PlacedChunk[] = [];
        const reader = stream!.getReader();
        for (let next = await reader.read(); !next.done; next = await reader.read()) got.push(next.value);
        const chunks = got.map((e) => e.chunk);
        expect(replyText(chunks)).toBe(SLOW_REPLY);
        expect(chunks).toEqual(parseChunks(await posted));
        expect(theirBus.size).toBe(0);
      } finally {
        await listener.close();
        await theirPool.end();
      }
    },
    40_000,
  );

  it("stops listening when the client goes away", async () => {
    const { threadId, posted } = await slowReply(1);
    // The streams that wait for progress news: the turns' own writers wait for asks, some of them lingering from earlier tests.
    const following = () => t.app.liveBus().listeners("progress");
    const waiting = following();
    const controller = new AbortController();
    const response = await streamRoute.GET(
      new Request(`http://localhost/api/threads/${threadId}/stream`, { headers: { cookie: t.me.cookie }, signal: controller.signal }),
      params(threadId),
    );
    const read = await readUntil(response, (text) => parseChunks(text).length > 0);
    expect(following()).toBe(waiting + 1);
    controller.abort();
    await read.reader.cancel().catch(() => {});
    await expect.poll(following).toBe(waiting);
    await posted;
  }, 40_000);

  it("a write that sweeps removes the rows of turns that ended over ten minutes ago and any row over a day old, and keeps the rest", async () => {
    const [ended, old, recent, running] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const row = (turnId: string, final: boolean, age: string) =>
      t.pool.query(`INSERT INTO turn_progress (turn_id, chunks, final, created_at) VALUES ($1, '[]', $2, now() - $3::interval)`, [turnId, final, age]);
    await row(ended, false, "12 minutes");
    await row(ended, true, "11 minutes");
    await row(old, false, "2 days");
    await row(recent, false, "6 minutes");
    await row(recent, true, "5 minutes");
    await row(running, false, "1 hour");
    const turnId = randomUUID();
    await new PostgresLiveStore(t.pool).writeProgress({ turnId, messages: [], final: false, sweep: true }, { channel: PROGRESS_CHANNEL, payload: "{}" });
    const { rows } = await t.pool.query<{ turn_id: string }>("SELECT turn_id FROM turn_progress WHERE turn_id = ANY($1)", [[ended, old, recent, running, turnId]]);
    expect(rows.map((r) => r.turn_id).sort()).toEqual([recent, recent, running, turnId].sort());
  });

  it("the page's chat engine resumes the reply with resumeStream(): the reply once, whole, in order", async () => {
    const { threadId, posted } = await slowReply(8);
    const finishes: { isError: boolean; finishReason: string | undefined }[] = [];
    const chat = new ChatEngine({
      messages: [{ id: randomUUID(), role: "user", parts: [{ type: "text", text: "[[slow]] follow me after a reload" }] }],
      generateId: randomUUID,
      api: "/api/chat",
      requestBody: () => ({}),
      resumeUrl: () => `/api/threads/${threadId}/stream`,
      fetch: async (url) => streamRoute.GET(request(String(url), { cookie: t.me.cookie }), params(threadId)),
      onFinish: ({ isError, finishReason }) => finishes.push({ isError, finishReason }),
    });
    await chat.resumeStream();
    await posted;
    expect(chat.error).toBeUndefined();
    expect(finishes).toEqual([{ isError: false, finishReason: "stop" }]);
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const text = chat.messages[1].parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
    expect(text).toEqual([SLOW_REPLY]);
  }, 40_000);
});

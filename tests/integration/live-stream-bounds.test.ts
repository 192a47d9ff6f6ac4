import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { LiveStreamSlots } from "@/lib/db/live-streams";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { PostgresLiveStore } from "@/lib/live/postgres-progress";
import type { TurnChunkMessage } from "@/lib/protocol/turn-events";
import { LiveBus, PROGRESS_CHANNEL } from "@/lib/live/bus";
import { TurnResume, type PlacedChunk } from "@/lib/live/turn-resume";
import { params, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as eventsRoute from "@/app/api/threads/events/route";
import * as streamRoute from "@/app/api/threads/[id]/stream/route";
import { integrationApp } from "../support/integration";

// What one identity's live streams may cost: a cap on how many it holds open,
// on every server (GET /api/threads/:id/stream and /api/threads/events
// together); one progress read per wake-up for all the streams following a
// turn; and no stream kept for a client that does not read.
const CAP = 3;
const t = integrationApp({ settings: { MAX_LIVE_STREAMS_PER_IDENTITY: String(CAP) } });
const adapter = new PostgresHistoryAdapter(t.pool);

const heldBy = async (owner: string) => (await t.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM live_streams WHERE owner = $1", [owner])).rows[0].n;

describe("an identity's live streams", () => {
  it("are capped across both routes and every server: the next one is a 429 with Retry-After until one ends", async () => {
    const me = await visitor();
    const news = (signal?: AbortSignal) => eventsRoute.GET(request("/api/threads/events", { cookie: me.cookie, signal }), undefined);
    const first = new AbortController();
    expect((await news(first.signal)).status).toBe(200);

    // A reply running, followed by two more streams: the third takes the last place.
    const turn = await chat.POST(request("/api/chat", { method: "POST", cookie: me.cookie, json: { message: { id: randomUUID(), content: "[[slow]] go on" } } }), undefined);
    const threadId = turn.headers.get("x-thread-id")!;
    const rest = turn.text();
    const resume = () => streamRoute.GET(request(`/api/threads/${threadId}/stream`, { cookie: me.cookie }), params(threadId));
    const followed = await resume();
    expect(followed.status).toBe(200);
    expect((await news()).status).toBe(200);
    expect(await heldBy(me.id)).toBe(CAP);

    for (const refused of [await resume(), await news()]) {
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await refused.json()).error).toMatchObject({ code: "rate_limited:live_streams", message: expect.stringContaining(`${CAP} live connections`) });
    }
    // Another app server counts the same rows.
    const elsewhere = new LiveStreamSlots(() => t.pool, () => CAP);
    await expect(elsewhere.open(me.id)).rejects.toMatchObject({ code: "rate_limited:live_streams" });
    // Another identity is not affected.
    expect((await eventsRoute.GET(request("/api/threads/events", { cookie: (await visitor()).cookie }), undefined)).status).toBe(200);

    // The client of the first goes away: its place is free again.
    first.abort();
    await expect.poll(() => heldBy(me.id)).toBe(CAP - 1);
    expect((await news()).status).toBe(200);

    // A resumed stream that ends with its reply gives its place back too.
    await followed.text();
    await rest;
    await expect.poll(() => heldBy(me.id)).toBe(CAP - 1);
  });

  it("held by a server that died lapse with their lease", async () => {
    const me = await visitor();
    const dead = new LiveStreamSlots(() => t.pool, () => CAP);
    for (let i = 0; i < CAP; i++) await dead.open(me.id);
    expect((await eventsRoute.GET(request("/api/threads/events", { cookie: me.cookie }), undefined)).status).toBe(429);
    // It stops renewing; its leases run out (set in the past rather than waited for).
    await t.pool.query("UPDATE live_streams SET expires_at = now() - interval '1 second' WHERE owner = $1", [me.id]);
    expect((await eventsRoute.GET(request("/api/threads/events", { cookie: me.cookie }), undefined)).status).toBe(200);
  });
  it("are renewed while open by one statement per interval, which also sweeps rows a dead server left long ago", async () => {
    const me = await visitor();
    const gone = `owner-${randomUUID()}`;
    await t.pool.query("INSERT INTO live_streams (id, owner, expires_at) VALUES ($1, $2, now() - interval '2 hours')", [randomUUID(), gone]);
    const slots = new LiveStreamSlots(() => t.pool, () => CAP, 1); // a one-second lease, renewed every third of it
    const release = await slots.open(me.id);
    const expiry = async () => (await t.pool.query<{ at: Date }>("SELECT expires_at AS at FROM live_streams WHERE owner = $1", [me.id])).rows[0]?.at.getTime();
    const first = await expiry();
    await expect.poll(expiry, { timeout: 5_000 }).toBeGreaterThan(first);
    await expect.poll(() => heldBy(gone), { timeout: 5_000 }).toBe(0);
    release();
    await expect.poll(() => heldBy(me.id)).toBe(0);
    expect(slots.size).toBe(0);
  });
});

/** A running turn of the owner's, as a turn opens it, whose progress the test writes itself. */
async function runningTurn() {
  const owner = `owner-${randomUUID()}`;
  const turnId = randomUUID();
  const messageId = randomUUID();
  const { threadId } = await adapter.turns!.openTurn({
    owner,
    threadId: randomUUID(),
    messageId,
    turnId,
    leaseMs: 60_000,
    message: { id: messageId, role: "user", content: "hello" },
  });
  const bus = new LiveBus();
  const write = async (chunks: UIMessageChunk[], final = false) => {
    const messages: TurnChunkMessage[] = chunks.map((chunk) => ({ attempt: 0, chunk }));
    await new PostgresLiveStore(t.pool).writeProgress({ turnId, messages, final, sweep: false }, { channel: PROGRESS_CHANNEL, payload: "{}" });
    bus.emit("progress", turnId);
  };
  return { owner, threadId, bus, write };
}

/** The test pool, counting the reads of turn_progress made through it. */
function countingReads(): { pool: pg.Pool; reads: () => number } {
  let reads = 0;
  const counting = {
    query: (...args: Parameters<pg.Pool["query"]>) => {
      if (typeof args[0] === "string" && args[0].includes("FROM turn_progress p")) reads++;
      return (t.pool.query as (...a: unknown[]) => unknown)(...args);
    },
  } as unknown as pg.Pool;
  return { pool: counting, reads: () => reads };
}

const delta = (text: string): UIMessageChunk => ({ type: "text-delta", id: "t", delta: text });
const textOf = (events: PlacedChunk[]) => events.map(({ chunk }) => (chunk.type === "text-delta" ? chunk.delta : "")).join("");

/** Reads placed events until `enough` holds of them. */
async function readEvents(reader: ReadableStreamDefaultReader<PlacedChunk>, into: PlacedChunk[], enough: (events: PlacedChunk[]) => boolean) {
  while (!enough(into)) {
    const next = await reader.read();
    if (next.done) break;
    into.push(next.value);
  }
  return into;
}

describe("the resumed streams of one turn", () => {
  it("share one progress read per wake-up, however many follow it", async () => {
    const { owner, threadId, bus, write } = await runningTurn();
    const { pool: counted, reads } = countingReads();
    // The poll set out of reach: only the wake-ups read.
    const resume = new TurnResume(() => new PostgresLiveStore(counted), () => bus, () => {}, 10 * 60_000);
    await write([{ type: "start" }, { type: "text-start", id: "t" }, delta("one ")]);

    const streams = 8;
    const readers = await Promise.all(Array.from({ length: streams }, () => resume.open(owner, threadId).then((s) => s!.getReader())));
    const got = readers.map(() => [] as PlacedChunk[]);
    await Promise.all(readers.map((reader, i) => readEvents(reader, got[i], (events) => textOf(events) === "one ")));
    expect(reads()).toBe(1);

    for (const [n, word] of ["two ", "three "].entries()) {
      await write([delta(word)]);
      await Promise.all(readers.map((reader, i) => readEvents(reader, got[i], (events) => textOf(events).endsWith(word))));
      expect(reads()).toBe(2 + n);
    }
    await write([delta("four"), { type: "text-end", id: "t" }, { type: "finish" }], true);
    await Promise.all(readers.map((reader, i) => readEvents(reader, got[i], () => false)));
    expect(reads()).toBe(4);
    for (const events of got) {
      expect(textOf(events)).toBe("one two three four");
      expect(events.at(-1)?.chunk.type).toBe("finish");
    }
    expect(resume.following).toBe(0);
    expect(bus.size).toBe(0);
  });

  it("cut off a client that stops reading once the turn wrote more than the backlog allows, and go on for the others", async () => {
    const { owner, threadId, bus, write } = await runningTurn();
    let ended = 0;
    const resume = new TurnResume(() => new PostgresLiveStore(t.pool), () => bus, () => {}, 10 * 60_000, 4_000);
    await write([{ type: "start" }, { type: "text-start", id: "t" }, delta("start ")]);
    const stalled = (await resume.open(owner, threadId, { onEnd: () => ended++ }))!.getReader();
    const reading = (await resume.open(owner, threadId))!.getReader();
    expect((await stalled.read()).value?.chunk.type).toBe("start"); // then it reads no more
    const got: PlacedChunk[] = [];
    await readEvents(reading, got, (events) => textOf(events) === "start ");

    let text = "start ";
    for (let i = 0; i < 10; i++) {
      const word = `${String(i).repeat(1_000)} `;
      text += word;
      await write([delta(word)]);
      await readEvents(reading, got, (events) => textOf(events) === text);
    }
    expect(ended).toBe(1);
    // What the stalled client finds when it reads at last: an error, not the rest of the reply.
    await expect(readEvents(stalled, [], () => false)).rejects.toThrow("The client stopped reading its stream.");

    await write([{ type: "text-end", id: "t" }, { type: "finish" }], true);
    await readEvents(reading, got, () => false);
    expect(got.at(-1)?.chunk.type).toBe("finish");
    expect(textOf(got)).toBe(text);
    expect(resume.following).toBe(0);
  });
});

import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { params, parseChunks, parseEvents, readSome, readUntil, replyText, request } from "../support/api";
import { progressIdsCrossADigit } from "../support/progress";
import { integrationApp } from "../support/integration";

// A durable reply in progress, joined late: the chat-turn function runs on the
// Inngest stand-in (through the real serve handler, in this process), each
// step writing its chunks to turn_progress with its attempt before it returns,
// and GET /api/threads/:id/stream replays them through the attempt filter.
describe("resuming a running reply (Inngest runtime)", () => {
  const t = integrationApp({ runtime: "inngest" });
  let chat: typeof import("@/app/api/chat/route");
  let streamRoute: typeof import("@/app/api/threads/[id]/stream/route");

  beforeAll(async () => {
    chat = await import("@/app/api/chat/route");
    streamRoute = await import("@/app/api/threads/[id]/stream/route");
  });

  const msg = (content: string) => ({ id: randomUUID(), content });
  const send = (body: unknown) => chat.POST(request("/api/chat", { method: "POST", cookie: t.me.cookie, json: body }), undefined);
  const resume = (threadId: string, headers?: Record<string, string>) =>
    streamRoute.GET(request(`/api/threads/${threadId}/stream`, { cookie: t.me.cookie, headers }), params(threadId));
  const progressOf = async (threadId: string) =>
    (
      await t.pool.query<{ chunks: { attempt: number; step?: string; chunk: { type: string; delta?: string } }[]; final: boolean }>(
        `SELECT p.chunks::json AS chunks, p.final FROM turn_progress p JOIN turns t ON t.turn_id = p.turn_id WHERE t.thread_id = $1 ORDER BY p.id`,
        [threadId],
      )
    ).rows;
  const progressText = async (threadId: string) => replyText((await progressOf(threadId)).flatMap((r) => r.chunks.map((m) => m.chunk as never)));

  /** The turn under way; its POST read until `enough` holds of what it streamed, and the rest meanwhile. */
  async function slowReply(content: string, enough: (text: string) => boolean = () => true) {
    await progressIdsCrossADigit(t.pool);
    const response = await send({ message: msg(content) });
    expect(response.status).toBe(200);
    const threadId = response.headers.get("x-thread-id")!;
    const { rest: posted } = await readSome(response, enough);
    return { threadId, posted };
  }

  it("streams the durable turn's reply so far and then the rest: what the POST streamed, once", async () => {
    const { threadId, posted } = await slowReply("[[slow]] durable, followed after a reload", (text) => replyText(parseChunks(text)).split(" ").length > 3);
    // Nobody asked yet: the process running the steps keeps the reply in memory.
    expect(await progressText(threadId)).toBe("");

    const first = await resume(threadId);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-thread-id")).toBe(threadId);
    const read = await readUntil(first, (text) => replyText(parseChunks(text)).split(" ").length > 6);
    await read.reader.cancel();
    const before = parseEvents(read.text);
    const rest = parseEvents(await (await resume(threadId, { "last-event-id": before.at(-1)!.id! })).text());
    const joined = [...before, ...rest];
    expect(new Set(joined.map((e) => e.id)).size).toBe(joined.length);

    const original = parseChunks(await posted);
    expect(replyText(joined.map((e) => e.chunk))).toBe(SLOW_REPLY);
    expect(joined.map((e) => e.chunk)).toEqual(original);
    expect(joined.at(-1)!.chunk).toMatchObject({ type: "finish" });

    await t.standin.idle();
    const rows = await progressOf(threadId);
    expect(rows.filter((r) => r.final)).toHaveLength(1);
    expect(rows.at(-1)!.final).toBe(true);
    // The model step's chunks carry their step, for the filter.
    expect(rows.flatMap((r) => r.chunks).some((m) => m.step?.startsWith("model:") && m.chunk.type === "text-delta")).toBe(true);
  }, 40_000);

  it("a retried step's first attempt is in turn_progress with its attempt, and the resumed stream withdraws it as the POST did", async () => {
    // The first attempt broke off; the second streams slowly.
    const { threadId, posted } = await slowReply("[[flaky-mid]] [[slow]] durable retry, followed", (text) =>
      parseChunks(text).some((c) => c.type === "data-retry"),
    );
    // The failed attempt's request wrote what it held before it ended, though nobody asked: its retry may run elsewhere.
    const handedOver = (await progressOf(threadId)).flatMap((r) => r.chunks);
    expect(handedOver.some((m) => m.attempt === 0 && m.chunk.type === "text-delta")).toBe(true);
    expect(handedOver.some((m) => m.attempt === 1)).toBe(false);
    const resumed = await resume(threadId);
    expect(resumed.status).toBe(200);
    const chunks = parseEvents(await resumed.text()).map((e) => e.chunk);
    const original = parseChunks(await posted);

    const attempts = new Set((await progressOf(threadId)).flatMap((r) => r.chunks.filter((m) => m.step?.startsWith("model:")).map((m) => m.attempt)));
    expect([...attempts].sort()).toEqual([0, 1]);
    const retry = chunks.findIndex((c) => c.type === "data-retry");
    expect(retry).toBeGreaterThan(0);
    expect(chunks[retry]).toMatchObject({ data: { step: "model:0:Triage:0", attempt: 1 } });
    expect(replyText(chunks.slice(retry))).toBe(SLOW_REPLY);
    expect(chunks).toEqual(original);
  }, 40_000);

  it("answers 204 once the durable turn is done", async () => {
    const { threadId, posted } = await slowReply("a quick durable one");
    await posted;
    await t.standin.idle();
    expect((await resume(threadId)).status).toBe(204);
    // Nobody watched it: the process that ran its steps wrote none of its progress.
    expect(await progressOf(threadId)).toEqual([]);
  });
});

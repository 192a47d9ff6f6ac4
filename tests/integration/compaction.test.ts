import { randomUUID } from "node:crypto";
import { InngestTestEngine } from "@inngest/test";
import { describe, expect, it, vi } from "vitest";
import { compactThread } from "@/lib/agent/compaction";
import { runNow } from "@/lib/agent/turn/steps";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import type { TurnHistory } from "@threadline/history/contract";
import { sinceLatestSummary } from "@/lib/client/history-mode";
import type { HistoryItem } from "@/lib/protocol/chat";
import { CHAT_TURN_EVENT, THREAD_COMPACT_EVENT } from "@/lib/protocol/turn-events";
import { createChatTurnFunction } from "@/inngest/functions/chat-turn";
import { createCompactThreadFunction } from "@/inngest/functions/compact-thread";
import { chatTurn, replyParts, signaturesIn } from "../support/api";
import { executeWithRetries } from "../support/inngest-engine";
import { compactEventData, turnEventData } from "../support/turn-events";
import * as chat from "@/app/api/chat/route";
import { integrationApp } from "../support/integration";

// Compaction with small settings (over 6 messages → down to 4, the last user
// turn always kept), through the chat route on the inline runtime, the
// Inngest functions under @inngest/test, and the real provider code talking to
// the mock model server, whose summary quotes the user lines it was given.
const SETTINGS = { COMPACTION_MAX_MESSAGES: "6", COMPACTION_TARGET_MESSAGES: "4", COMPACTION_KEEP_TURNS: "1" };

const t = integrationApp({ settings: SETTINGS });

type Body = { messages: { role: string; content: unknown }[] };
const bodies = () => t.mock.requests as Body[];
const isSummaryRequest = (body: Body) => String(body.messages[0]?.content).startsWith("You condense the earlier part");
const summaryRequests = () => bodies().filter(isSummaryRequest);
/** The last request an agent made (not a summary request). */
const lastAgentRequest = () => bodies().filter((b) => !isSummaryRequest(b)).at(-1)!;
const texts = (body: Body, role: string) => body.messages.filter((m) => m.role === role).map((m) => String(m.content));

async function rowsOf(threadId: string) {
  const { rows } = await t.pool.query<{ seq: string; kind: string; content: string; message_id: string; data: Record<string, unknown> }>(
    "SELECT seq, kind, content, message_id, data FROM messages WHERE thread_id = $1 ORDER BY seq",
    [threadId],
  );
  return rows;
}
const summaryRows = async (threadId: string) => (await rowsOf(threadId)).filter((r) => r.kind === "system_event");

/** Compaction runs after the turn has ended: wait for the thread to hold `count` summaries. */
async function summariesStored(threadId: string, count: number) {
  await vi.waitFor(
    async () => {
      expect(await summaryRows(threadId)).toHaveLength(count);
    },
    { timeout: 10_000, interval: 25 },
  );
  return summaryRows(threadId);
}

const turn = (body: Record<string, unknown>) => chatTurn(chat, body, t.me.cookie);

/** Turns on the database path, one per word; the thread's id. */
async function turns(words: string[], threadId?: string): Promise<string> {
  for (const content of words) {
    const { response } = await turn({ threadId, message: { id: randomUUID(), content } });
    expect(response.status).toBe(200);
    threadId = response.headers.get("x-thread-id")!;
  }
  return threadId!;
}

describe("compaction on the inline runtime", () => {
  it("waits for the threshold, then stores one summary, keeps every message, and the next turn reads the summary and the recent turns", async () => {
    const threadId = await turns(["m1", "m2", "m3"]); // 6 messages: not over
    const before = await rowsOf(threadId);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(summaryRequests()).toHaveLength(0);
    expect(await summaryRows(threadId)).toHaveLength(0);

    await turns(["m4"], threadId); // 8 messages: over 6
    const [summary] = await summariesStored(threadId, 1);
    expect(summary.content).toBe("Summary: said m1; said m2; said m3");
    expect(summary.data).toMatchObject({ event: "compaction", summarizedMessages: 6, throughSeq: 6 });
    expect(summaryRequests()).toHaveLength(1);
    // The summary's call is on its owner's bill with the answers', settled to what the model server said it spent.
    const bill = await t.pool.query("SELECT purpose, state FROM model_calls WHERE thread_id = $1 AND purpose = 'summary'", [threadId]);
    expect(bill.rows).toEqual([{ purpose: "summary", state: "settled" }]);
    // Nothing was deleted or changed: the summary came after everything there was.
    const after = await rowsOf(threadId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.filter((r) => r.kind !== "system_event")).toHaveLength(8);
    expect(after.at(-1)!.kind).toBe("system_event");

    const { chunks } = await turn({ threadId, message: { id: randomUUID(), content: "m5" } });
    const agent = lastAgentRequest();
    expect(texts(agent, "user")).toEqual(["m4", "m5"]);
    expect(texts(agent, "system").some((text) => text.includes("Summary: said m1; said m2; said m3"))).toBe(true);
    const history = chunks.find((c) => c.type === "data-history") as { data: { sentMessages: number; threadMessages: number } };
    expect(history.data).toMatchObject({ sentMessages: 4, threadMessages: 9 }); // the summary, m4, its reply, m5

    // m6 passes the threshold again (the summary and 6 messages): the new summary takes the old one in.
    await turns(["m6"], threadId);
    const summaries = await summariesStored(threadId, 2);
    expect(summaries[1].content).toBe("Summary: said m1; said m2; said m3; said m4; said m5");
    expect(summaries[1].data).toMatchObject({ summarizedMessages: 10 });
  });

  it("on the client path, a page whose copy lacks the new summary is told about it and then sends only what follows it", async () => {
    const copy: HistoryItem[] = [];
    let threadId: string | undefined;
    const send = async (content: string) => {
      const id = randomUUID();
      const sent = sinceLatestSummary(copy);
      const result = await turn({ threadId, message: { id, content }, ...(threadId ? { history: sent } : {}) });
      threadId = result.response.headers.get("x-thread-id")!;
      const signed = signaturesIn(result.chunks);
      const compacted = result.chunks.find((c) => c.type === "data-compacted") as { data: Record<string, never> } | undefined;
      const replyId = (result.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
      if (compacted) {
        const { id: summaryId, seq, parentId, signature, text, throughSeq, summarizedMessages } = compacted.data;
        copy.push({ id: summaryId, role: "system", seq, parentId, signature, parts: [{ type: "system-event", event: "compaction", text, throughSeq, summarizedMessages }] });
      }
      copy.push(
        { id, role: "user", parts: [{ type: "text", text: content }], ...signed.get(id) },
        { id: replyId, role: "assistant", parts: await replyParts(result.chunks), ...signed.get(replyId) },
      );
      return { source: result.response.headers.get("x-history-source"), compacted: Boolean(compacted), sent, chunks: result.chunks };
    };

    for (const word of ["c1", "c2", "c3"]) expect((await send(word)).source).toMatch(/new|client/);
    await send("c4");
    await summariesStored(threadId!, 1);

    // The copy ends before the summary: it has a gap, so the server reads the database, and says what it lacks.
    const fifth = await send("c5");
    expect(fifth.source).toBe("database");
    expect(fifth.compacted).toBe(true);
    expect(texts(lastAgentRequest(), "user")).toEqual(["c4", "c5"]);

    // With the summary in the copy, the next one is whole again, and only what follows the summary goes.
    const sixth = await send("c6");
    expect(sixth.source).toBe("client");
    expect(sixth.compacted).toBe(false);
    expect(sixth.sent.filter((m) => m.role === "user").map((m) => m.parts[0])).toEqual([
      { type: "text", text: "c4" },
      { type: "text", text: "c5" },
    ]);
    const agent = lastAgentRequest();
    expect(texts(agent, "user")).toEqual(["c4", "c5", "c6"]);
    expect(texts(agent, "system").some((text) => text.includes("Summary: said c1; said c2; said c3"))).toBe(true);
  });

  it("two compactions of one thread at once store one summary", async () => {
    const threadId = await turns(["r1", "r2", "r3"]);
    // Past the threshold by hand (4 more messages), without a turn that would compact on its own.
    const adapter = new PostgresHistoryAdapter(t.pool);
    for (const word of ["r4", "r5"]) {
      await adapter.appendUserMessage({ owner: t.me.id, threadId, turnId: randomUUID(), message: { id: randomUUID(), role: "user", content: word } });
      await adapter.appendResults({ owner: t.me.id, threadId, reply: { id: randomUUID(), role: "assistant", parts: [{ type: "text", text: `re ${word}` }], status: "complete" } });
    }
    const deps = { history: adapter, network: t.app.network(), step: runNow, newId: randomUUID };
    const outcomes = await Promise.all([compactThread({ owner: t.me.id, threadId }, deps), compactThread({ owner: t.me.id, threadId }, deps)]);
    expect(outcomes.filter((o) => o !== null)).toHaveLength(1);
    expect(await summaryRows(threadId)).toHaveLength(1);
    // And another owner's thread is not theirs to compact.
    expect(await compactThread({ owner: "someone-else", threadId }, deps)).toBeNull();
  });
});

describe("compaction under Inngest", () => {
  it("a turn past the threshold asks for compaction; the compaction function runs its model call once and stores once under a retry", async () => {
    const owner = `owner-${randomUUID()}`;
    const adapter = new PostgresHistoryAdapter(t.pool);
    const { threadId } = await adapter.createThread({ owner });
    for (const word of ["i1", "i2", "i3"]) {
      await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: { id: randomUUID(), role: "user", content: word } });
      await adapter.appendResults({ owner, threadId, reply: { id: randomUUID(), role: "assistant", parts: [{ type: "text", text: `re ${word}` }], status: "complete" } });
    }

    // The turn that takes the thread past 6 messages ends by asking for compaction.
    const requested = vi.fn(() => ({ ids: ["event-id"] }));
    const turnFn = createChatTurnFunction(t.app.inngest(), { ...t.app, publisher: { chunks: async () => {}, refused: async () => {} } });
    const event = { name: CHAT_TURN_EVENT, data: turnEventData({ turnId: randomUUID(), owner, threadId, content: "i4" }) };
    const ran = await new InngestTestEngine({ function: turnFn, events: [event] }).execute({ steps: [{ id: "request-compaction", handler: requested }] });
    expect(ran.error).toBeUndefined();
    expect(requested).toHaveBeenCalledTimes(1);
    // Signed, as the turn event is: the compaction function runs only what this app sent.
    const compactEvent = { name: THREAD_COMPACT_EVENT, data: compactEventData({ owner, threadId }) };
    expect(ran.ctx.step.sendEvent).toHaveBeenCalledWith("request-compaction", compactEvent);

    // The compaction function: its store commits, then the step fails (a lost connection) and is retried.
    let stores = 0;
    const flaky: TurnHistory = {
      appendUserMessage: (ctx) => adapter.appendUserMessage(ctx),
      appendResults: (ctx) => adapter.appendResults(ctx),
      get: (ctx) => adapter.get(ctx),
      turns: adapter.turns,
      titles: adapter.titles,
      summaries: {
        latest: (ctx) => adapter.summaries.latest(ctx),
        append: async (ctx) => {
          const stored = await adapter.summaries.append(ctx);
          if (stores++ === 0) throw new Error("connection lost after commit");
          return stored;
        },
      },
    };
    const compactFn = createCompactThreadFunction(t.app.inngest(), { ...t.app, history: () => flaky });
    const at = (attempt: number) =>
      new InngestTestEngine({ function: compactFn, events: [compactEvent], transformCtx: (ctx) => ({ ...ctx, attempt }) });
    const { error, attempts } = await executeWithRetries(at);
    expect(error).toBeUndefined();
    expect(attempts).toBe(2);
    expect(stores).toBe(2);
    expect(summaryRequests()).toHaveLength(1);
    const summaries = await summaryRows(threadId);
    expect(summaries).toHaveLength(1);
    expect(summaries[0].content).toBe("Summary: said i1; said i2; said i3");

    // Asked again (a repeated event), it finds nothing to do.
    const again = await new InngestTestEngine({ function: compactFn, events: [compactEvent] }).execute();
    expect(again.result).toEqual({ summarySeq: null });
    expect(await summaryRows(threadId)).toHaveLength(1);
  });

  it("refuses a compaction event this app did not sign, or signed for another thread or owner, before any step; a signed one compacts", async () => {
    const owner = `owner-${randomUUID()}`;
    const adapter = new PostgresHistoryAdapter(t.pool);
    const { threadId } = await adapter.createThread({ owner });
    for (const word of ["f1", "f2", "f3", "f4"]) {
      await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: { id: randomUUID(), role: "user", content: word } });
      await adapter.appendResults({ owner, threadId, reply: { id: randomUUID(), role: "assistant", parts: [{ type: "text", text: `re ${word}` }], status: "complete" } });
    }
    const other = await adapter.createThread({ owner: `owner-${randomUUID()}` });
    const genuine = compactEventData({ owner, threadId });
    const compactFn = createCompactThreadFunction(t.app.inngest(), t.app);
    const run = (data: object) => new InngestTestEngine({ function: compactFn, events: [{ name: THREAD_COMPACT_EVENT, data }] }).execute();

    const forgeries = [
      { owner, threadId, authorization: undefined },
      compactEventData({ owner, threadId, forge: "bm90LWEtc2lnbmF0dXJl" }),
      // A signature of the app's, for another thread of another owner's: it does not pass for this one.
      { ...compactEventData({ owner: `owner-${randomUUID()}`, threadId: other.threadId }), owner, threadId },
      { ...genuine, owner: `owner-${randomUUID()}` },
      { ...genuine, threadId: other.threadId },
    ];
    for (const forged of forgeries) {
      const out = await run(forged);
      expect(out.error).toMatchObject({ name: "NonRetriableError", message: "Refused a compaction event that this app did not sign." });
      expect(out.ctx.step.run).not.toHaveBeenCalled();
    }
    expect(summaryRequests()).toHaveLength(0);
    expect(await summaryRows(threadId)).toHaveLength(0);

    const out = await run(genuine);
    expect(out.error).toBeUndefined();
    expect(out.result).toEqual({ summarySeq: expect.any(Number) });
    expect(summaryRequests()).toHaveLength(1);
    expect((await summaryRows(threadId)).map((r) => r.content)).toEqual(["Summary: said f1; said f2; said f3"]);
  });
});

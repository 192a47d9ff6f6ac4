import { randomUUID } from "node:crypto";
import { InngestTestEngine } from "@inngest/test";
import type { UIMessageChunk } from "ai";
import { describe, expect, it, vi } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { createChatTurnFunction } from "@/inngest/functions/chat-turn";
import { CHAT_TURN_EVENT, type TurnChunkMessage } from "@/lib/protocol/turn-events";
import { chatTurn, params, request } from "../support/api";
import { turnEventData } from "../support/turn-events";
import * as chat from "@/app/api/chat/route";
import * as timeline from "@/app/api/threads/[id]/timeline/route";
import { integrationApp } from "../support/integration";

// A thread whose history is more than the model may read (MAX_MODEL_INPUT_CHARS,
// small here) is compacted before the turn that would send it, as steps of
// that turn, and then answered; compaction also follows a turn on size, not
// only on the count of messages. Against the real provider code and the mock
// model server, whose summary quotes the user lines it was given.
const BUDGET = 6_000;
const SETTINGS = { MAX_MODEL_INPUT_CHARS: String(BUDGET) };

const t = integrationApp({ settings: SETTINGS });
const adapter = new PostgresHistoryAdapter(t.pool);

type Body = { messages: { role: string; content: unknown }[] };
const isSummaryRequest = (body: Body) => String(body.messages[0]?.content).startsWith("You condense the earlier part");
const agentRequests = () => (t.mock.requests as Body[]).filter((body) => !isSummaryRequest(body));
const summaryRequests = () => (t.mock.requests as Body[]).filter(isSummaryRequest);
/** What an agent's request gave the model besides its own instructions: the history and the new message. */
const conversationChars = (body: Body) =>
  body.messages.slice(1).reduce((sum, m) => sum + (typeof m.content === "string" ? m.content.length : JSON.stringify(m.content).length), 0);

/** A thread stored by hand (as an import or an older version would leave it): short questions, long answers, no summary. */
async function seededThread(owner: string, turns: number, replyChars: number): Promise<string> {
  const { threadId } = await adapter.createThread({ owner });
  for (let i = 0; i < turns; i++) {
    await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: { id: randomUUID(), role: "user", content: `topic ${i}` } });
    const text = `Answer ${i}: ${"lorem ipsum ".repeat(replyChars / 12)}`;
    await adapter.appendResults({ owner, threadId, reply: { id: randomUUID(), role: "assistant", status: "complete", parts: [{ type: "text", text }] } });
  }
  return threadId;
}

async function summaryRows(threadId: string) {
  const { rows } = await t.pool.query<{ content: string; data: { summarizedMessages: number; throughSeq: number } }>(
    "SELECT content, data FROM messages WHERE thread_id = $1 AND kind = 'system_event' ORDER BY seq",
    [threadId],
  );
  return rows;
}

const chunkTypes = (chunks: UIMessageChunk[]) => chunks.map((chunk) => chunk.type);

describe("a thread over the model's input budget", () => {
  it("is compacted first, as the user is told, then answered with an input under the budget; the summary joins the thread", async () => {
    const threadId = await seededThread(t.me.id, 4, 2_000); // about 8,000 characters of history
    const turn = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "what did we cover?" } }, t.me.cookie);
    expect(turn.response.status).toBe(200);
    expect(turn.chunks.filter((chunk) => chunk.type === "error")).toEqual([]);
    expect(turn.text).toContain('You said: "what did we cover?"');

    // Told while it happens, before the reply; then the summary comes, for the page's copy and its marker.
    const types = chunkTypes(turn.chunks);
    const notice = turn.chunks.find((chunk) => chunk.type === "data-notice") as { data: { text: string } } | undefined;
    expect(notice?.data.text).toBe("Summarizing earlier messages…");
    expect(types.indexOf("data-notice")).toBeLessThan(types.indexOf("data-compacted"));
    expect(types.indexOf("data-compacted")).toBeLessThan(types.indexOf("text-delta"));

    expect(summaryRequests()).toHaveLength(1);
    const [request] = agentRequests();
    expect(conversationChars(request)).toBeLessThanOrEqual(BUDGET);
    expect(JSON.stringify(request.messages)).toContain("Summary: said topic 0; said topic 1; said topic 2; said topic 3");

    const [summary] = await summaryRows(threadId);
    expect(summary.data.summarizedMessages).toBe(8);
    // The turn's own message is not in the summary: the model read it as it is.
    expect(summary.content).not.toContain("what did we cover?");
    const parts = (await (await timeline.GET(request_(threadId), params(threadId))).json()).parts as { type: string }[];
    expect(parts.filter((part) => part.type === "system-event")).toHaveLength(1);
    expect(parts.filter((part) => part.type === "text")).toHaveLength(10); // every message kept: 4 turns, the new one and its reply
  });

  it("compacted inside a regenerate, keeps its summary where the next turn reads it: no second summary, the input under the budget", async () => {
    const threadId = await seededThread(t.me.id, 4, 2_000);
    const { rows } = await t.pool.query<{ message_id: string; kind: string; content: string }>(
      "SELECT message_id, kind, content FROM messages WHERE thread_id = $1 ORDER BY seq",
      [threadId],
    );
    const lastUser = rows.findLast((row) => row.kind === "user")!;
    const lastReply = rows.at(-1)!;
    const regenerated = await chatTurn(chat, { threadId, message: { id: lastUser.message_id, content: lastUser.content }, replaces: lastReply.message_id }, t.me.cookie);
    expect(regenerated.response.status).toBe(200);
    expect(regenerated.chunks.filter((chunk) => chunk.type === "error")).toEqual([]);
    expect(chunkTypes(regenerated.chunks)).toContain("data-compacted");
    expect(summaryRequests()).toHaveLength(1);

    // The summary is on the new reply's path, after it; the replaced reply is still its sibling's version.
    const { rows: after } = await t.pool.query<{ kind: string; active: boolean; parent_message_id: string | null; message_id: string }>(
      "SELECT kind, active, parent_message_id, message_id FROM messages WHERE thread_id = $1 ORDER BY seq",
      [threadId],
    );
    const newReply = after.findLast((row) => row.kind === "assistant")!;
    expect(newReply).toMatchObject({ active: true, parent_message_id: lastUser.message_id });
    expect(after.find((row) => row.message_id === lastReply.message_id)).toMatchObject({ active: false, parent_message_id: lastUser.message_id });
    expect(after.find((row) => row.kind === "system_event")).toMatchObject({ active: true, parent_message_id: newReply.message_id });
    t.mock.requests.length = 0;
    const next = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "and after that?" } }, t.me.cookie);
    expect(next.response.status).toBe(200);
    expect(next.chunks.filter((chunk) => chunk.type === "error")).toEqual([]);
    // The regenerate's summary stands for the earlier messages: nothing is summarized again.
    expect(summaryRequests()).toHaveLength(0);
    const [asked] = agentRequests();
    expect(JSON.stringify(asked.messages)).toContain("Summary: said topic 0");
    expect(conversationChars(asked)).toBeLessThanOrEqual(BUDGET);
    const parts = (await (await timeline.GET(request_(threadId), params(threadId))).json()).parts as { type: string }[];
    expect(parts.filter((part) => part.type === "system-event")).toHaveLength(1);
  });

  it("still refuses, clearly, a single new message over the budget, and summarizes nothing for it", async () => {
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "long ".repeat(1_400) } }, t.me.cookie);
    expect(turn.response.status).toBe(200);
    const errors = turn.chunks.flatMap((chunk) => (chunk.type === "error" ? [chunk.errorText] : []));
    expect(errors).toEqual([expect.stringMatching(/^This message is too long to send to the model \(7,000 characters; the limit is 6,000\)/)]);
    expect(t.mock.requests).toHaveLength(0);
  });

  it("after a turn, a history past half the budget is compacted for the next one, however few its messages", async () => {
    const content = `first ${"abcdefghij".repeat(150)}`;
    const first = await chatTurn(chat, { message: { id: randomUUID(), content } }, t.me.cookie);
    expect(first.response.status).toBe(200);
    expect(first.chunks.filter((chunk) => chunk.type === "error")).toEqual([]);
    // About 1,500 characters asked and 1,600 echoed: past the half of 6,000 only once it is answered.
    await vi.waitFor(async () => expect(await summaryRows(first.threadId!)).toHaveLength(1), { timeout: 10_000, interval: 50 });
    const [summary] = await summaryRows(first.threadId!);
    expect(summary.content).toBe(`Summary: said ${content}`);
    expect(summary.data.summarizedMessages).toBe(2);
  });
});

describe("under Inngest", () => {
  it("compacts as steps of the chat-turn run, publishes the notice and the summary, and answers", async () => {
    const owner = `owner-${randomUUID()}`;
    const threadId = await seededThread(owner, 4, 2_000);
    const published: TurnChunkMessage[] = [];
    const turnFn = createChatTurnFunction(t.app.inngest(), { ...t.app, publisher: { chunks: async (_turn, messages) => void published.push(...messages), refused: async () => {} } });
    const event = { name: CHAT_TURN_EVENT, data: turnEventData({ turnId: randomUUID(), owner, threadId, content: "and now?" }) };
    const ran = await new InngestTestEngine({ function: turnFn, events: [event] }).execute({ steps: [{ id: "request-compaction", handler: () => ({ ids: [] }) }] });
    expect(ran.error).toBeUndefined();
    expect(ran.result).toMatchObject({ status: "complete" });

    const types = published.map((message) => message.chunk.type);
    expect(types).toContain("data-notice");
    expect(types).toContain("data-compacted");
    expect(types.indexOf("data-compacted")).toBeLessThan(types.indexOf("text-delta"));
    expect(await summaryRows(threadId)).toHaveLength(1);
    expect(summaryRequests()).toHaveLength(1);
    expect(conversationChars(agentRequests()[0])).toBeLessThanOrEqual(BUDGET);
  });
});

const request_ = (threadId: string) => request(`/api/threads/${threadId}/timeline`, { cookie: t.me.cookie });

import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it, vi } from "vitest";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import { memoryTools } from "@/lib/memory/memory-tools";
import { chatTurn, request } from "../support/api";
import { integrationApp } from "../support/integration";
import { answerRequests, storedMemories, systemTexts } from "../support/memory";

// The agents' remember and forget: each waits for the person's approval under
// the default approval mode, keeps or deletes one memory once however often
// the approved call runs, and changes nothing in a temporary chat.

describe("the memory tools", () => {
  const t = integrationApp({ settings: { RATE_LIMIT_CHAT_PER_MINUTE: "0" }, dueWork: true });

  const send = (content: string, extra: Record<string, unknown> = {}) => chatTurn(chat, { message: { id: randomUUID(), content }, ...extra }, t.me.cookie);
  const approve = (threadId: string, approvalId: string) =>
    decisionRoute.POST(request(`/api/threads/${threadId}/approvals/${approvalId}`, { method: "POST", cookie: t.me.cookie, json: { approved: true } }), {
      params: Promise.resolve({ id: threadId, approvalId }),
    });
  /** Asks for the call, approves it, and waits for the reply to end: the call's result as stored. */
  async function approved(call: string, extra: Record<string, unknown> = {}) {
    const turn = await send(call, extra);
    const asked = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
    expect(asked, "the call waits for the person's approval").toBeDefined();
    const replyId = (turn.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    expect((await approve(turn.threadId!, asked!.approvalId)).status).toBe(202);
    return vi.waitFor(
      async () => {
        const { rows } = await t.pool.query<{ content: string }>(
          "SELECT content, data FROM messages WHERE thread_id = $1 AND message_id = $2 AND kind = 'tool_result'",
          [turn.threadId, replyId],
        );
        if (!rows[0]) throw new Error("the call has not run yet");
        const { rows: reply } = await t.pool.query("SELECT status FROM messages WHERE thread_id = $1 AND message_id = $2 AND part_index = 0", [turn.threadId, replyId]);
        if (reply[0]?.status !== "complete") throw new Error("the reply has not ended yet");
        return { result: JSON.parse(rows[0].content) as { output?: unknown; error?: string }, threadId: turn.threadId!, replyId };
      },
      { timeout: 15_000, interval: 50 },
    );
  }

  it("remember keeps a fact once approved, linked to the reply that kept it; forget deletes it for good", async () => {
    await t.app.memories().add(t.me.id, "Likes tea");
    const kept = await approved('[[call:remember:{"text":"Prefers metric units"}]]');
    // The reply goes on after the decision knowing what it was given at its start.
    const goneOn = answerRequests(t.mock).at(-1)!;
    expect(goneOn.messages.some((m) => m.role === "tool"), "the request after the decision, with the call's result").toBe(true);
    expect(systemTexts(goneOn).join("\n")).toContain('"text":"Likes tea"');
    await t.pool.query("DELETE FROM memories WHERE owner = $1 AND text = 'Likes tea'", [t.me.id]);
    const [memory] = await storedMemories(t.pool, t.me.id);
    expect(memory).toMatchObject({ text: "Prefers metric units", source_thread_id: kept.threadId, source_message_id: kept.replyId });
    expect(kept.result.output).toEqual({ id: memory.id, text: "Prefers metric units" });

    await approved(`[[call:forget:{"id":"${memory.id}"}]]`);
    expect(await storedMemories(t.pool, t.me.id)).toEqual([]);
    const { rows } = await t.pool.query("SELECT state, text FROM memories WHERE id = $1", [memory.id]);
    expect(rows).toEqual([{ state: "deleted", text: "" }]);
  });

  it("change nothing in a temporary chat or for a person whose memory is off", async () => {
    const temporary = await approved('[[call:remember:{"text":"Lives in Porto"}]]', { temporary: true });
    expect(temporary.result.error).toMatch(/temporary chat/);
    await t.app.memories().setEnabled(t.me.id, false);
    const off = await approved('[[call:remember:{"text":"Lives in Porto"}]]');
    expect(off.result.error).toMatch(/turned their memory off/);
    expect(await storedMemories(t.pool, t.me.id)).toEqual([]);
  });

  it("keep one memory however often the approved call runs", async () => {
    const { me } = t;
    const [remember] = memoryTools({ store: t.app.memoryStore(), max: 500 });
    const thread = await send("hello");
    const context = { owner: me.id, threadId: thread.threadId!, idempotencyKey: randomUUID(), replyId: "reply-1" };
    const first = await remember.execute({ text: "Likes tea" }, context);
    const again = await remember.execute({ text: "Likes tea" }, context);
    expect(again).toEqual(first);
    expect((await storedMemories(t.pool, me.id)).map((m) => m.text)).toEqual(["Likes tea"]);
  });
});

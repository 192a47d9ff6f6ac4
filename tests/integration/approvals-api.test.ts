import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { denialText } from "@threadline/history/approvals";
import type { Part } from "@threadline/history/parts";
import { chatTurn, params, parseEvents, replyParts, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import * as streamRoute from "@/app/api/threads/[id]/stream/route";
import * as stopRoute from "@/app/api/threads/[id]/stop/route";
import * as messagesRoute from "@/app/api/threads/[id]/messages/route";
import { signMessage } from "@/lib/auth/history-signature";
import { toChatMessage } from "@/lib/client/messages";
import type { MessagesPage } from "@/lib/protocol/threads";
import { integrationApp } from "../support/integration";

// A tool call that asks first, end to end on both runtimes: the route
// handlers in-process, the real provider code talking to the mock model
// server, every tool call asking (TOOL_APPROVAL=all). The reply waits; the
// owner's decision makes it go on (inline: as a turn of its own; Inngest: in
// the run that asked, woken by the decision's event), which the thread's
// stream carries; a new message or Stop ends the wait instead.
const ASKING = { TOOL_APPROVAL: "all" };

describe.each(["inline", "inngest"] as const)("deciding on a tool call (%s runtime)", (runtime) => {
  // Inline, as the server does when it starts (instrumentation.ts): replies left undone, or whose calls expired, go on.
  const t = integrationApp({ runtime, settings: ASKING, dueWork: true });

  const ASKS = '[[call:calculate:{"expression":"6 * 7"}]]';
  const send = (content: string, threadId?: string) => chatTurn(chat, { message: { id: randomUUID(), content }, ...(threadId ? { threadId } : {}) }, t.me.cookie);
  const decide = (threadId: string, approvalId: string, body: unknown, cookie = t.me.cookie) =>
    decisionRoute.POST(request(`/api/threads/${threadId}/approvals/${approvalId}`, { method: "POST", cookie, json: body }), {
      params: Promise.resolve({ id: threadId, approvalId }),
    });
  const replyOf = async (threadId: string, id: string) => {
    const { rows } = await t.pool.query<{ status: string }>("SELECT status FROM messages WHERE thread_id = $1 AND message_id = $2 AND part_index = 0", [threadId, id]);
    return rows[0]?.status;
  };
  const stop = (threadId: string) => stopRoute.POST(request(`/api/threads/${threadId}/stop`, { method: "POST", cookie: t.me.cookie }), params(threadId));
  const storedParts = async (threadId: string) => (await t.app.history().get({ owner: t.me.id, threadId })).at(-1)!.parts;

  /** A thread whose reply waits for the approval of one calculate call. */
  async function waiting(content = ASKS) {
    const turn = await send(content);
    expect(turn.response.status).toBe(200);
    const request = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
    expect(request).toBeDefined();
    expect(turn.chunks.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
    const replyId = (turn.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    const threadId = turn.threadId!;
    expect(await replyOf(threadId, replyId)).toBe("waiting");
    return { threadId, replyId, approvalId: request!.approvalId, toolCallId: request!.toolCallId };
  }

  it("goes on once approved: the call runs, the model reads its result, and the thread's stream rebuilds the same reply", async () => {
    const { threadId, replyId, approvalId, toolCallId } = await waiting(`[[slow]] ${ASKS}`);
    const response = await decide(threadId, approvalId, { approved: true });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ approvalId, outcome: "approved" });

    const stream = await streamRoute.GET(request(`/api/threads/${threadId}/stream`, { cookie: t.me.cookie }), params(threadId));
    expect(stream.status).toBe(200);
    const chunks = parseEvents(await stream.text()).map((e) => e.chunk);
    expect(chunks.find((c) => c.type === "start")).toEqual({ type: "start", messageId: replyId, messageMetadata: { model: "openai-compatible:mock-model" } });
    expect(chunks).toContainEqual({ type: "data-approval", data: { toolCallId, id: approvalId, outcome: "approved" }, transient: true });
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    expect(await replyOf(threadId, replyId)).toBe("complete");

    const stored = await storedParts(threadId);
    const result = stored.find((p) => p.type === "tool-result");
    expect(result).toMatchObject({ toolCallId, output: { expression: "6 * 7", result: "42" }, approval: { id: approvalId, outcome: "approved" } });
    expect(stored.at(-1)).toMatchObject({ type: "text", text: expect.stringContaining("calculate →") });
    // What the stream rebuilt is what the thread holds.
    expect(await replyParts(chunks)).toEqual(stored.map(({ approval, ...part }: Part & { approval?: unknown }) => (part.type === "tool-call" || part.type === "tool-result" ? { ...part, approval } : part)));
  });

  it("goes on once denied: the call never runs and the model reads the user's reason", async () => {
    const { threadId, replyId, approvalId } = await waiting();
    t.mock.requests.length = 0;
    const response = await decide(threadId, approvalId, { approved: false, reason: "  not now  " });
    expect(await response.json()).toEqual({ approvalId, outcome: "denied", reason: "not now" });
    await expect.poll(() => replyOf(threadId, replyId)).toBe("complete");
    const stored = await storedParts(threadId);
    expect(stored.find((p) => p.type === "tool-result")).toMatchObject({ error: denialText("denied", "not now"), approval: { id: approvalId, outcome: "denied", reason: "not now" } });
    expect(JSON.stringify(t.mock.requests)).toContain(denialText("denied", "not now"));
    expect(stored.at(-1)).toMatchObject({ type: "text", text: expect.stringContaining(denialText("denied", "not now")) });
  });

  it("asks inside a sub-agent's call as anywhere: once approved, the sub-agent finishes its call, and the caller answers from it", async () => {
    const task = '[[call:calculate:{"expression":"6 * 7"}]]';
    const { threadId, replyId, toolCallId } = await waiting(`[[call:call_agent:${JSON.stringify({ agent: "Researcher", task })}]]`);
    const asked = (await storedParts(threadId)).find((p) => p.type === "tool-call" && p.toolCallId === toolCallId);
    const call = (await storedParts(threadId)).find((p) => p.type === "tool-call" && p.toolName === "call_agent")!;
    expect(asked).toMatchObject({ toolName: "calculate", parentCallId: (call as { toolCallId: string }).toolCallId });
    const approvalId = (asked as { approval: { id: string } }).approval.id;
    expect((await decide(threadId, approvalId, { approved: true })).status).toBe(202);
    await expect.poll(() => replyOf(threadId, replyId), { timeout: 15_000 }).toBe("complete");
    const parts = await storedParts(threadId);
    const callId = (call as { toolCallId: string }).toolCallId;
    expect(parts.find((p) => p.type === "tool-result" && p.toolCallId === toolCallId)).toMatchObject({ output: { result: "42" }, parentCallId: callId });
    expect(parts.find((p) => p.type === "tool-result" && p.toolCallId === callId)).toMatchObject({ toolName: "call_agent", output: { agent: "Researcher" } });
    expect(parts.at(-1)).toMatchObject({ type: "text", agentName: "Triage", text: expect.stringContaining("call_agent →") });
  });

  it("pages a reply with two waiting calls with the one decided so far, which the page draws decided while the other asks", async () => {
    const { threadId, replyId, approvalId } = await waiting(`${ASKS} [[call:calculate:{"expression":"1 + 1"}]]`);
    const page = async () => {
      const response = await messagesRoute.GET(request(`/api/threads/${threadId}/messages`, { cookie: t.me.cookie }), params(threadId));
      return ((await response.json()) as MessagesPage).messages.at(-1)!;
    };
    expect((await page()).decided).toBeUndefined();
    expect((await decide(threadId, approvalId, { approved: false, reason: "not that one" })).status).toBe(202);
    expect(await replyOf(threadId, replyId)).toBe("waiting");

    const reply = await page();
    expect(reply.decided).toEqual({ [approvalId]: { approved: false, reason: "not that one" } });
    const states = toChatMessage(reply).parts.flatMap((p) => (p.type === "dynamic-tool" ? [[p.toolName, p.state]] : []));
    expect(states).toEqual([
      ["calculate", "approval-responded"],
      ["calculate", "approval-requested"],
    ]);
    // The signature covers the stored reply alone: the page's copy, sent back, is trusted as it was.
    const signature = reply.signature;
    const { decided: _decided, ...stored } = reply;
    expect(signMessage(await t.app.sessionSecret(), t.me.id, threadId, stored)).toBe(signature);

    // Stop ends the wait (a durable run would otherwise wait out its day).
    expect((await stop(threadId)).status).toBeLessThan(300);
    await expect.poll(() => replyOf(threadId, replyId)).not.toBe("waiting");
  });

  it("keeps the first decision: a second is refused with 409 and changes nothing", async () => {
    const { threadId, replyId, approvalId } = await waiting();
    const [first, second] = await Promise.all([decide(threadId, approvalId, { approved: true }), decide(threadId, approvalId, { approved: false })]);
    expect([first.status, second.status].sort()).toEqual([202, 409]);
    const refused = first.status === 409 ? first : second;
    expect((await refused.json()).error.code).toBe("conflict:already_decided");
    await expect.poll(() => replyOf(threadId, replyId)).toBe("complete");
    const results = (await storedParts(threadId)).filter((p) => p.type === "tool-result");
    expect(results).toHaveLength(1);
  });

  it("answers 404 for an unknown, foreign or malformed approval, and 400 for a body that is not a decision", async () => {
    const { threadId, approvalId } = await waiting();
    const stranger = await visitor();
    expect((await decide(threadId, randomUUID(), { approved: true })).status).toBe(404);
    expect((await decide(threadId, "nope", { approved: true })).status).toBe(404);
    expect((await decide(threadId, approvalId, { approved: true }, stranger.cookie)).status).toBe(404);
    const other = await waiting();
    expect((await decide(other.threadId, approvalId, { approved: true })).status).toBe(404);
    for (const body of [{}, { approved: "yes" }, { approved: true, reason: "x".repeat(501) }, { approved: true, extra: 1 }]) {
      const response = await decide(threadId, approvalId, body);
      expect(response.status).toBe(400);
      expect((await response.json()).error.message).toMatch(/approved|reason|extra|Unrecognized/i);
    }
    expect((await t.pool.query("SELECT decision FROM tool_approvals WHERE id = $1", [approvalId])).rows).toEqual([{ decision: null }]);
    // Ended, so that no durable run waits on past the test.
    for (const id of [threadId, other.threadId]) await stop(id);
  });

  it("denies a call decided after its time as expired, and the model reads that", async () => {
    const { threadId, replyId, approvalId } = await waiting();
    await t.pool.query("UPDATE tool_approvals SET requested_at = now() - interval '25 hours' WHERE id = $1", [approvalId]);
    const response = await decide(threadId, approvalId, { approved: true });
    // A durable run that asked may look first, and expire it itself: the late decision is then told so.
    const answer = await response.json();
    if (response.status === 409) expect(answer.error).toEqual({ code: "conflict:already_decided", message: "This was already decided: it expired." });
    else expect(answer).toEqual({ approvalId, outcome: "expired" });
    await expect.poll(() => replyOf(threadId, replyId)).toBe("complete");
    expect((await storedParts(threadId)).find((p) => p.type === "tool-result")).toMatchObject({ error: denialText("expired"), approval: { outcome: "expired" } });
  });

  it("denies a call nobody decided as expired once its time is up, and the reply goes on without anyone asking", async () => {
    const { threadId, replyId, approvalId } = await waiting();
    await t.pool.query("UPDATE tool_approvals SET requested_at = now() - interval '25 hours' WHERE id = $1", [approvalId]);
    // Inline, a server's look for due work finds it; on Inngest, the run that waits looks again.
    await expect.poll(() => replyOf(threadId, replyId), { timeout: 20_000 }).toBe("complete");
    expect((await storedParts(threadId)).find((p) => p.type === "tool-result")).toMatchObject({ error: denialText("expired"), approval: { id: approvalId, outcome: "expired" } });
    expect((await t.pool.query("SELECT decision FROM tool_approvals WHERE id = $1", [approvalId])).rows).toEqual([{ decision: "expired" }]);
  });

  it("answers a new message while a reply waits, the waiting call skipped because the user moved on", async () => {
    const { threadId, replyId, approvalId } = await waiting();
    const next = await send("never mind, what is new?", threadId);
    expect(next.response.status).toBe(200);
    expect(next.text).toContain("never mind");
    expect(await replyOf(threadId, replyId)).toBe("complete");
    const messages = await t.app.history().get({ owner: t.me.id, threadId });
    const skipped = messages.find((m) => m.id === replyId)!.parts.find((p) => p.type === "tool-result");
    expect(skipped).toMatchObject({ error: denialText("moved_on"), approval: { id: approvalId, outcome: "moved_on" } });
    expect((await decide(threadId, approvalId, { approved: true })).status).toBe(409);
  });

  it("stops a waiting reply on Stop: its call did not run", async () => {
    const { threadId, replyId, approvalId } = await waiting();
    expect(await (await stop(threadId)).json()).toEqual({ stopped: true });
    expect(await replyOf(threadId, replyId)).toBe("stopped");
    expect((await storedParts(threadId)).find((p) => p.type === "tool-result")).toMatchObject({ error: denialText("stopped"), approval: { id: approvalId, outcome: "stopped" } });
    expect((await decide(threadId, approvalId, { approved: true })).status).toBe(409);
  });
});

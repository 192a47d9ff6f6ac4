import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { afterAll, describe, expect, it } from "vitest";
import { denialText } from "@threadline/history/approvals";
import { chatTurn, params, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import * as stopRoute from "@/app/api/threads/[id]/stop/route";
import { integrationApp } from "../support/integration";

// A provider that repeats its tool-call ids (the mock's [[same-call-id]]: every
// call is call_0): each call of a reply still gets an id of its own (a call
// the reply already holds an id of is suffixed, _2, _3 …), so each asks for
// an approval of its own, and an Approve runs the call it names alone. The
// repeat that matters is across the reply's model calls: a reply that goes
// on after a decision and asks again (the mock's [[call-again]]) must not
// find its new call already approved. On the Inngest runtime the run that
// asked goes on after the decisions, replaying its memoized steps: the ids it
// reads back are the ones it made.
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const remind = (text: string) => `[[call:schedule_reminder:{"at":"${inAnHour()}","text":"${text}"}]]`;

describe.each(["inline", "inngest checkpointed", "inngest async"] as const)("tool calls under one provider id (%s runtime)", (runtime) => {
  const t = integrationApp({
    runtime: runtime === "inline" ? "inline" : "inngest",
    inngest: { mode: runtime === "inngest async" ? "async" : "checkpointed" },
  });
  afterAll(async () => {
    if (runtime === "inline") return;
    // The reminders' runs sleep until they are due, an hour away: cancelled, they end now.
    for (const run of t.standin.runs.filter((r) => r.fnId.endsWith("post-reminder") && r.status !== "completed")) {
      await fetch(`${t.standin.url}/v1/runs/${run.id}`, { method: "DELETE" });
    }
  });

  const decide = (cookie: string, threadId: string, approvalId: string, body: unknown) =>
    decisionRoute.POST(request(`/api/threads/${threadId}/approvals/${approvalId}`, { method: "POST", cookie, json: body }), {
      params: Promise.resolve({ id: threadId, approvalId }),
    });
  const asked = (chunks: UIMessageChunk[]) => chunks.filter((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
  const approvalsOf = async (threadId: string) =>
    (await t.pool.query<{ id: string; tool_call_id: string; decision: string | null }>("SELECT id, tool_call_id, decision FROM tool_approvals WHERE thread_id = $1 ORDER BY requested_at, tool_call_id", [threadId])).rows;
  const remindersOf = async (threadId: string) =>
    (await t.pool.query<{ text: string }>("SELECT text FROM reminders WHERE thread_id = $1 ORDER BY created_at", [threadId])).rows.map((r) => r.text);
  const statusOf = async (threadId: string, replyId: string) =>
    (await t.pool.query<{ status: string }>("SELECT status FROM messages WHERE thread_id = $1 AND message_id = $2 AND part_index = 0", [threadId, replyId])).rows[0]?.status;

  it("a call asked again under the id of one approved before asks anew: the Approve ran only the first", async () => {
    const me = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: `[[same-call-id]] [[call-again]] ${remind("stretch")}` } }, me.cookie);
    expect(turn.response.status).toBe(200);
    const threadId = turn.threadId!;
    const replyId = (turn.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    const [first] = asked(turn.chunks);
    expect(first.toolCallId).toBe("call_0");

    // Approved, the call runs; the model asks for the same again, under the same provider id.
    expect((await decide(me.cookie, threadId, first.approvalId, { approved: true })).status).toBe(202);
    await expect.poll(async () => (await approvalsOf(threadId)).length, { timeout: 15_000 }).toBe(2);
    await expect.poll(() => statusOf(threadId, replyId), { timeout: 15_000 }).toBe("waiting");
    const [, again] = await approvalsOf(threadId);
    expect(again.tool_call_id).toBe("call_0_2");
    expect(again.id).not.toBe(first.approvalId);
    expect(again.decision).toBeNull(); // it waits for a decision of its own
    expect(await remindersOf(threadId)).toEqual(["stretch"]);

    // The reply holds both calls, each answered (or not yet) under its own id.
    const [, reply] = await t.app.history().get({ owner: me.id, threadId });
    const calls = reply.parts.filter((p) => p.type === "tool-call");
    expect(calls.map((c) => [c.toolCallId, c.approval?.id])).toEqual([
      ["call_0", first.approvalId],
      ["call_0_2", again.id],
    ]);
    const results = reply.parts.filter((p) => p.type === "tool-result");
    expect(results).toEqual([expect.objectContaining({ toolCallId: "call_0", approval: { id: first.approvalId, outcome: "approved" } })]);

    // Approving the second runs it, once.
    expect((await decide(me.cookie, threadId, again.id, { approved: true })).status).toBe(202);
    await expect.poll(() => remindersOf(threadId), { timeout: 15_000 }).toEqual(["stretch", "stretch"]);
    // The model asks a third time ([[call-again]]): Stop ends the wait (and, under Inngest, the run that waits).
    await expect.poll(async () => (await approvalsOf(threadId)).map((a) => a.tool_call_id), { timeout: 15_000 }).toEqual(["call_0", "call_0_2", "call_0_3"]);
    expect((await stopRoute.POST(request(`/api/threads/${threadId}/stop`, { method: "POST", cookie: me.cookie }), params(threadId))).status).toBeLessThan(300);
    await expect.poll(() => statusOf(threadId, replyId), { timeout: 15_000 }).toBe("stopped");
  });

  it("two calls of one response under one id ask for two approvals, and approving one runs exactly that one", async () => {
    const me = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: `[[same-call-id]] ${remind("stretch")} ${remind("drink water")}` } }, me.cookie);
    expect(turn.response.status).toBe(200);
    const threadId = turn.threadId!;
    const replyId = (turn.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    const [first, second] = asked(turn.chunks);
    expect(first.toolCallId).toBe("call_0");
    expect(second.toolCallId).not.toBe(first.toolCallId);
    expect(second.approvalId).not.toBe(first.approvalId);
    expect((await approvalsOf(threadId)).map((a) => a.id).sort()).toEqual([first.approvalId, second.approvalId].sort());

    expect((await decide(me.cookie, threadId, first.approvalId, { approved: true })).status).toBe(202);
    expect(await statusOf(threadId, replyId)).toBe("waiting"); // the other call is still to be decided
    expect((await decide(me.cookie, threadId, second.approvalId, { approved: false, reason: "not that one" })).status).toBe(202);
    await expect.poll(() => statusOf(threadId, replyId), { timeout: 15_000 }).toBe("complete");

    expect(await remindersOf(threadId)).toEqual(["stretch"]);
    const [, reply] = await t.app.history().get({ owner: me.id, threadId });
    const results = reply.parts.filter((p) => p.type === "tool-result");
    expect(results).toHaveLength(2);
    expect(results.find((p) => p.toolCallId === first.toolCallId)).toMatchObject({ approval: { id: first.approvalId, outcome: "approved" }, output: expect.anything() });
    expect(results.find((p) => p.toolCallId === second.toolCallId)).toMatchObject({
      approval: { id: second.approvalId, outcome: "denied" },
      error: denialText("denied", "not that one"),
    });
  });
});

import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { denialText } from "@threadline/history/approvals";
import { chatTurn, params, request } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as forkRoute from "@/app/api/threads/[id]/fork/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import { integrationApp } from "../support/integration";

// A fork of a reply that waits for the user's approval: the approvals are the
// source's, so the copy is stopped, its undecided calls answered as not
// decided in the original thread; nobody can decide them there, and the
// inline runtime's due work never goes on with it. The source still waits.
const ASKING = { TOOL_APPROVAL: "all" };
const ASKS = '[[call:calculate:{"expression":"6 * 7"}]]';

describe("forking a reply that waits for an approval (inline runtime)", () => {
  const t = integrationApp({ settings: ASKING });

  const decide = (threadId: string, approvalId: string, body: unknown) =>
    decisionRoute.POST(request(`/api/threads/${threadId}/approvals/${approvalId}`, { method: "POST", cookie: t.me.cookie, json: body }), {
      params: Promise.resolve({ id: threadId, approvalId }),
    });
  const fork = (threadId: string, messageId: string) =>
    forkRoute.POST(request(`/api/threads/${threadId}/fork`, { method: "POST", cookie: t.me.cookie, json: { messageId } }), params(threadId));
  const statusOf = async (threadId: string, messageId: string) => {
    const { rows } = await t.pool.query<{ status: string }>("SELECT DISTINCT status FROM messages WHERE thread_id = $1 AND message_id = $2", [threadId, messageId]);
    return rows.map((r) => r.status);
  };

  it("copies it stopped with its call answered as not decided there, which nothing decides or goes on with; the source still waits", async () => {
    // Its own words, so the model's requests about this thread can be told from other tests' on the same database.
    const words = `${ASKS} fork ${randomUUID()}`;
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: words } }, t.me.cookie);
    expect(turn.response.status).toBe(200);
    const asked = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request")!;
    const replyId = (turn.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    const threadId = turn.threadId!;
    expect(await statusOf(threadId, replyId)).toEqual(["waiting"]);

    const response = await fork(threadId, replyId);
    expect(response.status).toBe(201);
    const copyId = (await response.json()).thread.id as string;

    // The copy: stopped, its call answered, no approval of its own.
    const [, copied] = await t.app.history().get({ owner: t.me.id, threadId: copyId });
    expect(copied.status).toBe("stopped");
    expect(await statusOf(copyId, copied.id)).toEqual(["stopped"]);
    expect(copied.parts.filter((p) => p.type === "tool-result")).toEqual([
      {
        type: "tool-result",
        toolCallId: asked.toolCallId,
        toolName: "calculate",
        error: denialText("forked"),
        approval: { id: asked.approvalId, outcome: "forked" },
        agentName: expect.any(String),
      },
    ]);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM tool_approvals WHERE thread_id = $1", [copyId])).rows).toEqual([{ n: 0 }]);

    // Deciding the copied card is refused: the approval is not the copy's.
    const refused = await decide(copyId, asked.approvalId, { approved: true });
    expect(refused.status).toBe(404);
    expect((await refused.json()).error).toEqual({ code: "not_found:approval", message: "No such approval in this thread." });

    // The due work finds nothing of the copy's to go on with: no model call, the copy as it was.
    const due = await t.app.approvals().dueReplies({ timeoutMs: 0, limit: 1_000 });
    expect(due.filter((d) => d.threadId === copyId)).toEqual([]);
    const aboutThis = () => t.mock.requests.filter((body) => JSON.stringify(body).includes(words)).length;
    const before = aboutThis();
    await t.app.dueWork()!.look();
    expect(aboutThis()).toBe(before);
    // Nor did it claim the copy for a turn (the model call of one would come after the look).
    expect((await t.pool.query("SELECT count(*)::int AS n FROM turns WHERE thread_id = $1", [copyId])).rows).toEqual([{ n: 0 }]);
    expect((await t.app.history().get({ owner: t.me.id, threadId: copyId })).at(-1)).toEqual(copied);

    // The source still waits, and its owner's decision makes it go on.
    expect(await statusOf(threadId, replyId)).toEqual(["waiting"]);
    const approved = await decide(threadId, asked.approvalId, { approved: true });
    expect(approved.status).toBe(202);
    await expect.poll(() => statusOf(threadId, replyId)).toEqual(["complete"]);
    const [, source] = await t.app.history().get({ owner: t.me.id, threadId });
    expect(source.parts.find((p) => p.type === "tool-result")).toMatchObject({ output: { result: "42" }, approval: { id: asked.approvalId, outcome: "approved" } });
  });
});

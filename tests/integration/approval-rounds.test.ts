import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { chatTurn, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import * as stopRoute from "@/app/api/threads/[id]/stop/route";
import { denialText } from "@threadline/history/approvals";
import { integrationApp } from "../support/integration";

// What one message may buy through its approvals: a model that asks again
// after every decision gets at most MAX_TOOL_ROUNDS rounds, the last one's
// call answered (not asked) so the reply ends; each decision counts against
// the chat limit as a message does; and a reply that goes on is held to the
// whole turn's time as a first turn is, freeing its thread when it runs out.

const ROUNDS = {
  TOOL_APPROVAL: "all",
  MAX_TOOL_ROUNDS: "2",
  // The first message and two decisions fit; the next message does not.
  RATE_LIMIT_CHAT_PER_MINUTE: "3",
};
const ASKS_FOREVER = '[[call:calculate:{"expression":"6 * 7"}]] [[call-again]]';

describe.each(["inline", "inngest"] as const)("approval rounds (%s runtime)", (runtime) => {
  const t = integrationApp({ runtime, settings: ROUNDS });

  const send = (content: string, threadId?: string) => chatTurn(chat, { message: { id: randomUUID(), content }, ...(threadId ? { threadId } : {}) }, t.me.cookie);
  const decide = (threadId: string, approvalId: string) =>
    decisionRoute.POST(request(`/api/threads/${threadId}/approvals/${approvalId}`, { method: "POST", cookie: t.me.cookie, json: { approved: true } }), {
      params: Promise.resolve({ id: threadId, approvalId }),
    });
  const approvals = async (threadId: string) =>
    (await t.pool.query<{ id: string; decision: string | null }>("SELECT id, decision FROM tool_approvals WHERE thread_id = $1 ORDER BY requested_at, id", [threadId])).rows;
  const reply = async (threadId: string) => (await t.app.history().get({ owner: t.me.id, threadId })).at(-1)!;
  const idle = async (threadId: string) =>
    (await t.pool.query("SELECT 1 FROM turns WHERE thread_id = $1 AND threadline_turn_running(turns)", [threadId])).rowCount === 0;

  it("asks at most MAX_TOOL_ROUNDS times for one message, the last round's call answered instead, and counts each decision as a message", async () => {
    const turn = await send(ASKS_FOREVER);
    expect(turn.response.status).toBe(200);
    const threadId = turn.threadId!;
    const first = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request")!;
    expect(first).toBeDefined();

    // Round 1: the model asks again.
    expect((await decide(threadId, first.approvalId)).status).toBe(202);
    await expect.poll(async () => (await approvals(threadId)).length, { timeout: 15_000 }).toBe(2);
    await expect.poll(async () => (await reply(threadId)).status === "waiting" && (await idle(threadId)), { timeout: 15_000 }).toBe(true);
    const second = (await approvals(threadId)).find((a) => a.decision === null)!;

    // Round 2, the last: the model asks again, and is answered without asking; the reply ends.
    expect((await decide(threadId, second.id)).status).toBe(202);
    await expect.poll(async () => (await reply(threadId)).status, { timeout: 15_000 }).toBe("complete");
    expect(await approvals(threadId)).toHaveLength(2);
    const refused = (await reply(threadId)).parts.filter((p) => p.type === "tool-result" && "error" in p && p.error?.startsWith("Not run: this reply has asked"));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ error: expect.stringContaining("2 times, the most one message may") });
    // Every model call of every round, the ones after each decision too, is on the owner's bill, settled.
    const bill = await t.pool.query<{ state: string }>("SELECT state FROM model_calls WHERE thread_id = $1", [threadId]);
    expect(bill.rows).toHaveLength(t.mock.requests.length);
    expect(bill.rows.every((row) => row.state === "settled")).toBe(true);

    // The message and its two decisions used the three turns a minute allows.
    const next = await send("and now?", threadId);
    expect(next.response.status).toBe(429);
    expect(next.error?.error.code).toBe("rate_limited:chatPerIdentity");
  });
});

describe("a reply that goes on after a decision, within the turn's time (inline runtime)", () => {
  const t = integrationApp({ settings: { TOOL_APPROVAL: "all", TURN_TIMEOUT_SECONDS: "2", MODEL_IDLE_TIMEOUT_SECONDS: "120" } });

  it("ends at TURN_TIMEOUT_SECONDS when the model stalls, keeping what it wrote, and frees the thread", async () => {
    const me = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: '[[call:calculate:{"expression":"6 * 7"}]] [[hang-after-tools]]' } }, me.cookie);
    const threadId = turn.threadId!;
    const asked = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request")!;
    const decided = await decisionRoute.POST(
      request(`/api/threads/${threadId}/approvals/${asked.approvalId}`, { method: "POST", cookie: me.cookie, json: { approved: true } }),
      { params: Promise.resolve({ id: threadId, approvalId: asked.approvalId }) },
    );
    expect(decided.status).toBe(202);

    const last = async () => (await t.app.history().get({ owner: me.id, threadId })).at(-1)!;
    await expect.poll(async () => (await last()).status, { timeout: 20_000 }).toBe("incomplete");
    // The approved call ran and its result is kept.
    expect((await last()).parts.find((p) => p.type === "tool-result")).toMatchObject({ toolName: "calculate", output: expect.anything() });
    const running = await t.pool.query("SELECT 1 FROM turns WHERE thread_id = $1 AND threadline_turn_running(turns)", [threadId]);
    expect(running.rowCount).toBe(0);
    const next = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "still there?" } }, me.cookie);
    expect(next.response.status).toBe(200);
    expect(next.text).toContain("still there?");
  });
});

describe("an approval racing Stop (inline runtime)", () => {
  const t = integrationApp({ settings: { TOOL_APPROVAL: "all" } });

  it("never records a call approved that did not run, and a Stop says whether it stopped anything", async () => {
    for (let i = 0; i < 6; i++) {
      const me = await visitor();
      const turn = await chatTurn(chat, { message: { id: randomUUID(), content: '[[call:calculate:{"expression":"6 * 7"}]]' } }, me.cookie);
      const threadId = turn.threadId!;
      const asked = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request")!;
      const [, stop] = await Promise.all([
        decisionRoute.POST(request(`/api/threads/${threadId}/approvals/${asked.approvalId}`, { method: "POST", cookie: me.cookie, json: { approved: true } }), {
          params: Promise.resolve({ id: threadId, approvalId: asked.approvalId }),
        }),
        stopRoute.POST(request(`/api/threads/${threadId}/stop`, { method: "POST", cookie: me.cookie }), { params: Promise.resolve({ id: threadId }) }),
      ]);
      const { stopped } = (await stop.json()) as { stopped: boolean };

      const last = async () => (await t.app.history().get({ owner: me.id, threadId })).at(-1)!;
      const settled = async () =>
        (await last()).status !== "waiting" &&
        (await t.pool.query("SELECT 1 FROM turns WHERE thread_id = $1 AND threadline_turn_running(turns)", [threadId])).rowCount === 0;
      await expect.poll(settled, { timeout: 15_000 }).toBe(true);
      const { rows } = await t.pool.query<{ decision: string }>("SELECT decision FROM tool_approvals WHERE id = $1", [asked.approvalId]);
      const result = (await last()).parts.find((p) => p.type === "tool-result" && p.toolName === "calculate")!;
      if (rows[0].decision === "approved") expect(result).toMatchObject({ output: expect.anything() });
      else {
        expect(rows[0].decision).toBe("stopped");
        expect(result).toMatchObject({ error: denialText("stopped") });
        // A Stop that kept the call from running says it stopped something.
        expect(stopped).toBe(true);
      }
    }
  });
});

import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { afterAll, describe, expect, it } from "vitest";
import { chatTurn, params, request } from "../support/api";
import { testPool } from "../support/db";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import { ReminderStore } from "@/lib/reminders/reminder-store";
import { integrationApp } from "../support/integration";

// Reminders end to end, on both runtimes: the model calls schedule_reminder
// (the mock model server, through the real provider code), the call asks
// first, the user approves, and at its time the reminder is posted into the
// thread once: inline by the servers' look for due work, on Inngest by a run
// that sleeps until then. A cancelled reminder, or one whose thread was
// deleted, never posts.
describe.each(["inline", "inngest"] as const)("reminders (%s runtime)", (runtime) => {
  // Inline, as the server does when it starts (instrumentation.ts).
  const t = integrationApp({ runtime, dueWork: true });

  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
  const ask = (content: string, threadId?: string) =>
    chatTurn(chat, { message: { id: randomUUID(), content }, timeZone: "Europe/Paris", ...(threadId ? { threadId } : {}) }, t.me.cookie);
  const approve = async (threadId: string, chunks: UIMessageChunk[]) => {
    const asked = chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
    expect(asked, "the call asked first").toBeDefined();
    const response = await decisionRoute.POST(
      request(`/api/threads/${threadId}/approvals/${asked!.approvalId}`, { method: "POST", cookie: t.me.cookie, json: { approved: true, timeZone: "Europe/Paris" } }),
      { params: Promise.resolve({ id: threadId, approvalId: asked!.approvalId }) },
    );
    expect(response.status).toBe(202);
    return asked!.approvalId;
  };
  const reminderRows = async (threadId: string) =>
    (await t.pool.query<{ id: string; status: string; text: string; time_zone: string }>("SELECT id, status, text, time_zone FROM reminders WHERE thread_id = $1", [threadId])).rows;
  const posted = async (threadId: string) =>
    (await t.pool.query<{ content: string }>("SELECT content FROM messages WHERE thread_id = $1 AND content LIKE 'Reminder: %' ORDER BY seq", [threadId])).rows.map((r) => r.content);
  /** Once the reply that scheduled it has gone on to its end. */
  const untilIdle = (threadId: string) =>
    expect
      .poll(async () => (await t.pool.query("SELECT 1 FROM turns WHERE thread_id = $1 AND threadline_turn_running(turns)", [threadId])).rowCount, { timeout: 10_000 })
      .toBe(0);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** A thread whose reminder, due in `seconds`, the user has approved and the agent has scheduled. */
  async function scheduled(text: string, seconds: number) {
    const turn = await ask(`[[call:schedule_reminder:{"at":"${inSeconds(seconds)}","text":"${text}"}]]`);
    expect(turn.response.status).toBe(200);
    const threadId = turn.threadId!;
    const approvalId = await approve(threadId, turn.chunks);
    await expect.poll(() => reminderRows(threadId), { timeout: 10_000 }).toHaveLength(1);
    await untilIdle(threadId);
    return { threadId, approvalId };
  }

  it("posts an approved reminder into its thread at its time, once, keyed by the call that scheduled it", async () => {
    const { threadId, approvalId } = await scheduled("stretch", 2);
    expect(await reminderRows(threadId)).toEqual([{ id: approvalId, status: "scheduled", text: "stretch", time_zone: "Europe/Paris" }]);
    expect(await posted(threadId)).toEqual([]);
    await expect.poll(() => posted(threadId), { timeout: 15_000 }).toEqual(["Reminder: stretch"]);
    await sleep(1_500);
    expect(await posted(threadId)).toEqual(["Reminder: stretch"]);
    expect((await reminderRows(threadId))[0].status).toBe("posted");
    // The thread's newest message is the reminder, from the assistant: the sidebar marks it a new reply.
    const history = await t.app.history().get({ owner: t.me.id, threadId });
    const last = history.at(-1)!;
    expect(last).toMatchObject({ role: "assistant", reminder: true, parts: [{ type: "text", text: "Reminder: stretch" }] });

    // It answers no message: a regenerate of it is refused, and the thread takes the next message as any other.
    const asked = history.findLast((m) => m.role === "user")!;
    const askedText = asked.parts.find((p) => p.type === "text")!;
    const regenerate = await chatTurn(
      chat,
      { threadId, message: { id: asked.id, content: "text" in askedText ? askedText.text : "" }, replaces: last.id, timeZone: "Europe/Paris" },
      t.me.cookie,
    );
    expect(regenerate.response.status).toBe(400);
    expect(regenerate.error?.error.code).toBe("bad_request:replaces");
    const next = await ask("thanks, done", threadId);
    expect(next.response.status).toBe(200);
    expect(next.text).not.toBe("");
    const after = await t.app.history().get({ owner: t.me.id, threadId });
    expect(after.map((m) => m.role).slice(-3)).toEqual(["assistant", "user", "assistant"]);
    expect(after.at(-3)).toMatchObject({ id: last.id, reminder: true });
  });

  it("never posts a reminder cancelled through cancel_reminder, nor one whose thread was deleted", async () => {
    const first = await scheduled("cancel me", 3);
    const cancel = await ask(`[[call:cancel_reminder:{"id":"${first.approvalId}"}]]`, first.threadId);
    expect(cancel.response.status).toBe(200);
    await approve(first.threadId, cancel.chunks);
    await expect.poll(async () => (await reminderRows(first.threadId))[0].status, { timeout: 10_000 }).toBe("cancelled");

    const second = await scheduled("gone with its thread", 3);
    const deleted = await threadRoute.DELETE(request(`/api/threads/${second.threadId}`, { method: "DELETE", cookie: t.me.cookie }), params(second.threadId));
    expect(deleted.status).toBe(204);
    expect(await reminderRows(second.threadId)).toEqual([]);

    await sleep(5_000);
    expect(await posted(first.threadId)).toEqual([]);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM messages WHERE thread_id = $1", [second.threadId])).rows).toEqual([{ n: 0 }]);
  });
});

describe("the reminder store", () => {
  const pool = testPool();
  afterAll(() => pool.end());

  it("schedules a call's reminder once however often the call runs, and posts it once however many servers look at once", async () => {
    const owner = `owner-${randomUUID()}`;
    const threadId = randomUUID();
    await pool.query("INSERT INTO threads (id, owner, title) VALUES ($1, $2, 'reminders')", [threadId, owner]);
    const [a, b, c] = [new ReminderStore(pool), new ReminderStore(pool), new ReminderStore(pool)];
    const id = randomUUID();
    const reminder = { id, owner, threadId, text: "once", dueAt: new Date(Date.now() - 1_000), timeZone: "UTC" };
    const made = await Promise.all([a.schedule(reminder), b.schedule(reminder), c.schedule({ ...reminder, text: "twice?" })]);
    const stored = made.map((m) => ("reminder" in m ? m : undefined));
    expect(stored.filter((m) => m?.created)).toHaveLength(1);
    expect(new Set(stored.map((m) => m?.reminder.text)).size).toBe(1);
    expect(await a.schedule({ ...reminder, owner: "someone else", id: randomUUID() })).toEqual({ refused: "no_thread" });

    const looks = await Promise.all([a.postDue(), b.postDue(), c.postDue(), a.post(id), b.post(id)]);
    expect(looks.flat().filter((x) => x === id || x === "posted")).toHaveLength(1);
    const { rows } = await pool.query("SELECT content FROM messages WHERE thread_id = $1", [threadId]);
    expect(rows).toEqual([{ content: `Reminder: ${stored.find((m) => m?.created)!.reminder.text}` }]);
    expect(await a.cancel({ owner, id })).toBeNull();
  });
});

describe("a reminder asked of the offline model (a fresh clone, no model key)", () => {
  const t = integrationApp({ model: "offline" });

  it("asks to schedule it in two minutes, and once approved says when it will come", async () => {
    const asked = Date.now();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "Remind me in 2 minutes to stretch" }, timeZone: "Europe/Paris" }, t.me.cookie);
    expect(turn.response.status).toBe(200);
    const threadId = turn.threadId!;
    const input = turn.chunks.find((c) => c.type === "tool-input-available" && c.toolName === "schedule_reminder") as { input: { at: string; text: string } } | undefined;
    expect(input?.input.text).toBe("stretch");
    expect(Math.abs(Date.parse(input!.input.at) - (asked + 120_000))).toBeLessThan(10_000);
    const asking = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request")!;
    const decided = await decisionRoute.POST(
      request(`/api/threads/${threadId}/approvals/${asking.approvalId}`, { method: "POST", cookie: t.me.cookie, json: { approved: true, timeZone: "Europe/Paris" } }),
      { params: Promise.resolve({ id: threadId, approvalId: asking.approvalId }) },
    );
    expect(decided.status).toBe(202);
    const last = async () => (await t.app.history().get({ owner: t.me.id, threadId })).at(-1)!;
    await expect.poll(async () => (await last()).status, { timeout: 15_000 }).toBe("complete");
    expect((await last()).parts.at(-1)).toMatchObject({ type: "text", text: expect.stringContaining("I will remind you to stretch on") });
    expect((await t.pool.query("SELECT text, time_zone FROM reminders WHERE thread_id = $1", [threadId])).rows).toEqual([{ text: "stretch", time_zone: "Europe/Paris" }]);
  });
});

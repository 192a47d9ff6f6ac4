import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { chatTurn, request, visitor } from "../support/api";
import { testApp } from "../support/test-app";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import type { App } from "@/lib/app";
import { integrationApp } from "../support/integration";

// What one visitor's reminders may cost everyone else: a pile of reminders
// that cannot be posted (each thread waiting for a decision) never holds up
// another identity's, and no thread or identity holds more pending reminders,
// or schedules them faster, than the settings allow. A refusal is the call's
// error, which the model reads, and stores nothing.

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000);

describe("reminders under load and at their caps (inline runtime)", () => {
  const t = integrationApp();

  const ask = (cookie: string, content: string, threadId?: string) =>
    chatTurn(chat, { message: { id: randomUUID(), content }, timeZone: "UTC", ...(threadId ? { threadId } : {}) }, cookie);
  const scheduleCall = (text: string, at = inMinutes(60)) => `[[call:schedule_reminder:{"at":"${at.toISOString()}","text":"${text}"}]]`;

  /** Approves the call a turn asked about; the continuation runs on after the 202. */
  async function approve(cookie: string, threadId: string, chunks: UIMessageChunk[]) {
    const asked = chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
    expect(asked, "the call asked first").toBeDefined();
    const response = await decisionRoute.POST(
      request(`/api/threads/${threadId}/approvals/${asked!.approvalId}`, { method: "POST", cookie, json: { approved: true, timeZone: "UTC" } }),
      { params: Promise.resolve({ id: threadId, approvalId: asked!.approvalId }) },
    );
    expect(response.status).toBe(202);
  }

  /** The scheduling call's result once its reply has gone on to the end: its error, or undefined when it scheduled. */
  async function scheduled(app: App, owner: string, threadId: string) {
    const reply = async () => (await app.history().get({ owner, threadId })).at(-1)!;
    await expect.poll(async () => (await reply()).status, { timeout: 15_000 }).toBe("complete");
    const result = (await reply()).parts.find((p) => p.type === "tool-result" && p.toolName === "schedule_reminder");
    expect(result, "the call ran").toBeDefined();
    return result && "error" in result ? result.error : undefined;
  }

  const pending = async (where: { threadId?: string; owner?: string }) =>
    (
      await t.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM reminders WHERE status = 'scheduled' AND ($1::uuid IS NULL OR thread_id = $1) AND ($2::text IS NULL OR owner = $2)",
        [where.threadId ?? null, where.owner ?? null],
      )
    ).rows[0].n;

  it("posts another identity's reminder on time beside sixty that are blocked, each in a thread waiting for a decision", async () => {
    const app = testApp({ modelUrl: t.mock.url });
    try {
      const attacker = await visitor();
      const blocked: string[] = [];
      for (let t = 0; t < 6; t++) {
        // The turn asks first and nobody decides: the thread waits, so no reminder may be posted in it.
        const turn = await ask(attacker.cookie, scheduleCall("hold the line"));
        expect(turn.chunks.some((c) => c.type === "tool-approval-request")).toBe(true);
        const threadId = turn.threadId!;
        blocked.push(threadId);
        for (let r = 0; r < 10; r++) {
          const made = await app.reminders().schedule({ id: randomUUID(), owner: attacker.id, threadId, text: `blocked ${r}`, dueAt: inMinutes(-10), timeZone: "UTC" });
          expect(made).toMatchObject({ created: true });
        }
      }

      const me = await visitor();
      const mine = await ask(me.cookie, "hello");
      const threadId = mine.threadId!;
      await app.reminders().schedule({ id: randomUUID(), owner: me.id, threadId, text: "stretch", dueAt: inMinutes(-0.05), timeZone: "UTC" });

      // Each look takes the 20 due soonest; before, the same 20 blocked ones came first every time.
      const posted = async () => (await t.pool.query("SELECT 1 FROM messages WHERE thread_id = $1 AND content = 'Reminder: stretch'", [threadId])).rowCount;
      for (let look = 0; look < 6 && (await posted()) === 0; look++) await app.dueWork()!.look();
      expect(await posted()).toBe(1);
      // The blocked ones stay, none posted, each looked at put off past its due time (by how long is the clock's: not asserted).
      expect(await pending({ owner: attacker.id })).toBe(60);
      const { rows } = await t.pool.query<{ later: boolean }>(
        "SELECT bool_and(next_look_at > due_at) AS later FROM reminders WHERE thread_id = ANY($1::uuid[]) AND busy_looks > 0",
        [blocked],
      );
      expect(rows[0].later).toBe(true);
    } finally {
      await app.close();
    }
  });

  it("refuses a reminder past a thread's or an identity's cap, counted at once, storing nothing, and the model reads why", async () => {
    const app = testApp({ modelUrl: t.mock.url, settings: { REMINDERS_PER_THREAD: "2", REMINDERS_PER_IDENTITY: "3" } });
    try {
      const me = await visitor();
      const first = await ask(me.cookie, "first thread");
      const second = await ask(me.cookie, "second thread");
      const at = (threadId: string) => ({ id: randomUUID(), owner: me.id, threadId, text: "later", dueAt: inMinutes(60), timeZone: "UTC" });

      // Eight at once in one thread: two are stored, whatever the order.
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => app.reminders().schedule(at(first.threadId!))));
      expect(outcomes.filter((o) => "created" in o)).toHaveLength(2);
      expect(outcomes.filter((o) => "refused" in o && o.refused === "thread_full")).toHaveLength(6);
      expect(await app.reminders().schedule(at(second.threadId!))).toMatchObject({ created: true });
      expect(await app.reminders().schedule(at(second.threadId!))).toEqual({ refused: "owner_full" });

      // Through the agent: the approved call fails with the reason, and nothing more is stored.
      const turn = await ask(me.cookie, scheduleCall("one too many"), first.threadId!);
      await approve(me.cookie, first.threadId!, turn.chunks);
      expect(await scheduled(app, me.id, first.threadId!)).toBe("This conversation has too many reminders pending; cancel one or wait until one is posted.");
      expect(await pending({ owner: me.id })).toBe(3);
    } finally {
      await app.close();
    }
  });

  it("refuses scheduling faster than RATE_LIMIT_REMINDERS_PER_HOUR, as the call's error", async () => {
    const app = testApp({ modelUrl: t.mock.url, settings: { RATE_LIMIT_REMINDERS_PER_HOUR: "1" } });
    try {
      const me = await visitor();
      const once = await ask(me.cookie, scheduleCall("once"));
      await approve(me.cookie, once.threadId!, once.chunks);
      expect(await scheduled(app, me.id, once.threadId!)).toBeUndefined();

      const twice = await ask(me.cookie, scheduleCall("twice"));
      await approve(me.cookie, twice.threadId!, twice.chunks);
      expect(await scheduled(app, me.id, twice.threadId!)).toMatch(/^You are scheduling reminders faster than this server allows\. Try again in \d+ minutes\.$/);
      expect(await pending({ owner: me.id })).toBe(1);
    } finally {
      await app.close();
    }
  });
});

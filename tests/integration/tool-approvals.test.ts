import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import type { Reply } from "@threadline/history/contract";
import type { Part } from "@threadline/history/parts";
import { threadExportSchema } from "@/lib/protocol/thread-export";
import { threadExport } from "@/lib/threads/export";
import { ThreadRepository } from "@/lib/threads/repository";
import { WINGS } from "@/lib/wings";
import { denialText } from "@threadline/history/approvals";
import { databaseTargets, onDatabase } from "../support/db-targets";

// A tool call that asks for the user's approval is stored with the reply that
// holds it, waits, and is decided once, by its owner, whichever device asks
// first; the reply then goes on under the same message id.
const DAY_MS = 24 * 3_600_000;

describe.each(databaseTargets())("tool approvals on the $name", (target) => {
  const db = onDatabase(target);
  let owner: string;

  beforeEach(() => {
    owner = `owner-${randomUUID()}`;
  });

  const call = (approvalId: string): Part => ({
    type: "tool-call",
    toolCallId: "call-1",
    toolName: "schedule_reminder",
    input: { at: "2026-11-27T09:00:00Z", text: "stretch" },
    approval: { id: approvalId },
    agentName: "Assistant",
  });

  /** A thread whose reply waits on one call's approval. */
  async function waitingThread() {
    const { threadId } = await db.adapter.createThread({ owner });
    await db.adapter.appendUserMessage({ owner, threadId, turnId: "turn-1", message: { id: randomUUID(), role: "user", content: "remind me" } });
    const approvalId = randomUUID();
    const reply: Reply = { id: randomUUID(), role: "assistant", status: "waiting", parts: [{ type: "text", text: "I will ask first.", agentName: "Assistant" }, call(approvalId)] };
    await db.adapter.appendResults({ owner, threadId, reply });
    return { threadId, approvalId, reply };
  }

  const decide = (threadId: string, approvalId: string, approved: boolean, more: { reason?: string; timeoutMs?: number; as?: string } = {}) =>
    db.adapter.approvals.decide({ owner: more.as ?? owner, threadId, approvalId, approved, reason: more.reason, timeoutMs: more.timeoutMs ?? DAY_MS });

  it("stores the waiting reply with its call's approval, and reads both back", async () => {
    const { threadId, approvalId, reply } = await waitingThread();
    const [, stored] = await db.adapter.get({ owner, threadId });
    expect(stored).toMatchObject({ id: reply.id, status: "waiting" });
    expect(stored.parts[1]).toEqual(call(approvalId));
    const { rows } = await db.pool.query("SELECT thread_id, message_id, tool_call_id, tool_name, decision FROM tool_approvals WHERE id = $1", [approvalId]);
    expect(rows).toEqual([{ thread_id: threadId, message_id: reply.id, tool_call_id: "call-1", tool_name: "schedule_reminder", decision: null }]);
  });

  it("keeps the first decision: a second one is told how it went and changes nothing", async () => {
    const { threadId, approvalId, reply } = await waitingThread();
    expect(await decide(threadId, approvalId, false, { reason: "not today" })).toEqual({
      messageId: reply.id,
      outcome: "denied",
      reason: "not today",
      decidedNow: true,
      pending: 0,
    });
    expect(await decide(threadId, approvalId, true)).toMatchObject({ outcome: "denied", reason: "not today", decidedNow: false });
  });

  it("lets exactly one of two decisions at once make it", async () => {
    const { threadId, approvalId } = await waitingThread();
    const both = await Promise.all([decide(threadId, approvalId, true), decide(threadId, approvalId, false, { reason: "no" })]);
    expect(both.filter((d) => d?.decidedNow)).toHaveLength(1);
    expect(new Set(both.map((d) => d?.outcome)).size).toBe(1);
  });

  it("finds no approval for another owner, another thread, an unknown id or one that is no id", async () => {
    const { threadId, approvalId } = await waitingThread();
    const other = await waitingThread();
    expect(await decide(threadId, approvalId, true, { as: `owner-${randomUUID()}` })).toBeNull();
    expect(await decide(other.threadId, approvalId, true)).toBeNull();
    expect(await decide(threadId, randomUUID(), true)).toBeNull();
    expect(await decide(threadId, "not-an-id", true)).toBeNull();
    expect((await db.pool.query("SELECT decision FROM tool_approvals WHERE id = $1", [approvalId])).rows).toEqual([{ decision: null }]);
  });

  it("records an approval whose time is up as expired, whatever the late decision said", async () => {
    const { threadId, approvalId } = await waitingThread();
    expect(await decide(threadId, approvalId, true, { reason: "sure", timeoutMs: 0 })).toMatchObject({ outcome: "expired", decidedNow: true });
    expect(await decide(threadId, approvalId, true)).toMatchObject({ outcome: "expired", decidedNow: false });
    expect((await db.pool.query("SELECT reason FROM tool_approvals WHERE id = $1", [approvalId])).rows).toEqual([{ reason: null }]);
  });

  it("goes on under the same message once decided: the new parts follow the call, the whole reply takes its new status", async () => {
    const { threadId, approvalId, reply } = await waitingThread();
    await decide(threadId, approvalId, true);
    const result: Part = {
      type: "tool-result",
      toolCallId: "call-1",
      toolName: "schedule_reminder",
      output: { scheduled: true },
      approval: { id: approvalId, outcome: "approved" },
      agentName: "Assistant",
    };
    const goneOn: Reply = { ...reply, status: "complete", parts: [...reply.parts, result, { type: "text", text: "Done.", agentName: "Assistant" }] };
    await db.adapter.appendResults({ owner, threadId, reply: goneOn });
    const messages = await db.adapter.get({ owner, threadId });
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({ id: reply.id, status: "complete", parts: goneOn.parts });
    const { rows } = await db.pool.query("SELECT message_count FROM threads WHERE id = $1", [threadId]);
    expect(rows).toEqual([{ message_count: 2 }]);
  });

  it("is exported waiting, and imported as stopped with its call no longer waiting: the approval was the exporting server's", async () => {
    const { threadId, approvalId } = await waitingThread();
    const repo = new ThreadRepository(db.pool, WINGS);
    const file = threadExportSchema.parse(JSON.parse(JSON.stringify(threadExport(await db.repo.versionTree(owner, threadId), new Date()))));
    expect(file.messages[1]).toMatchObject({ status: "waiting", parts: [expect.anything(), call(approvalId)] });
    const importer = `owner-${randomUUID()}`;
    const imported = await db.repo.import(importer, file);
    const [, reply] = await db.adapter.get({ owner: importer, threadId: imported.id });
    expect(reply.status).toBe("stopped");
    const { approval: _, ...plain } = call(approvalId) as Extract<Part, { type: "tool-call" }>;
    expect(reply.parts[1]).toEqual(plain);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM tool_approvals WHERE thread_id = $1", [imported.id])).rows).toEqual([{ n: 0 }]);
  });

  /** A thread whose reply waits on two calls' approvals, asked by the turn of its user message. */
  async function twoCallThread() {
    const { threadId } = await db.adapter.createThread({ owner });
    const messageId = randomUUID();
    const opened = await db.adapter.turns.openTurn({ owner, threadId, messageId, turnId: "turn-1", message: { id: messageId, role: "user", content: "two things" }, leaseMs: 30_000 });
    expect(opened.claim.claimed).toBe(true);
    const ids = [randomUUID(), randomUUID()];
    const parts: Part[] = ids.map((id, i) => ({ ...call(id), toolCallId: `call-${i + 1}` }) as Part);
    const reply: Reply = { id: randomUUID(), role: "assistant", status: "waiting", parts };
    await db.adapter.appendResults({ owner, threadId, reply, turn: { messageId, turnId: "turn-1" } });
    return { threadId, messageId, ids, reply };
  }

  const claim = (threadId: string, replyId: string, more: { turnId?: string; timeoutMs?: number } = {}) =>
    db.adapter.approvals.claimContinuation({ owner, threadId, replyId, turnId: more.turnId ?? randomUUID(), leaseMs: 30_000, timeoutMs: more.timeoutMs ?? DAY_MS });

  it("is gone on with once every call of the reply is decided, by one claim of two at once", async () => {
    const { threadId, messageId, ids, reply } = await twoCallThread();
    expect(await decide(threadId, ids[0], true)).toMatchObject({ decidedNow: true, pending: 1 });
    expect(await claim(threadId, reply.id)).toEqual({ claimed: false, refused: "pending" });
    expect(await decide(threadId, ids[1], false, { reason: "not that one" })).toMatchObject({ decidedNow: true, pending: 0 });
    const both = await Promise.all([claim(threadId, reply.id), claim(threadId, reply.id)]);
    const won = both.filter((c) => c?.claimed);
    expect(won).toHaveLength(1);
    expect(both.find((c) => !c?.claimed)).toEqual({ claimed: false, refused: "busy" });
    expect(won[0]).toEqual({
      claimed: true,
      round: 1,
      messageId,
      decisions: expect.arrayContaining([
        { id: ids[0], toolCallId: "call-1", outcome: "approved" },
        { id: ids[1], toolCallId: "call-2", outcome: "denied", reason: "not that one" },
      ]),
    });
    // The claim is the message's turn: a new message meanwhile is refused, as while any turn runs.
    const next = randomUUID();
    await expect(
      db.adapter.turns.openTurn({ owner, threadId, messageId: next, turnId: "turn-3", message: { id: next, role: "user", content: "and?" }, leaseMs: 30_000 }),
    ).rejects.toMatchObject({ code: "conflict:turn_in_progress" });
  });

  it("settles two decisions at once on the two calls of a reply so that exactly one is told none is pending", async () => {
    for (let i = 0; i < 8; i++) {
      const { threadId, ids } = await twoCallThread();
      const both = await Promise.all([decide(threadId, ids[0], true), decide(threadId, ids[1], true)]);
      expect(both.map((d) => d?.pending).sort()).toEqual([0, 1]);
    }
  });

  it("records an approval that loses to Stop or a new message as what happened, not approved", async () => {
    const stopped = await twoCallThread();
    await decide(stopped.threadId, stopped.ids[0], true);
    await decide(stopped.threadId, stopped.ids[1], true);
    // Stop reaches the thread before any turn goes on with the reply: neither call runs.
    const stop = await db.adapter.turns.requestStop({ owner, threadId: stopped.threadId });
    expect(stop).toEqual({ turns: [], settled: [stopped.reply.id] });
    const decisions = async (threadId: string) =>
      (await db.pool.query<{ decision: string }>("SELECT decision FROM tool_approvals WHERE thread_id = $1 ORDER BY tool_call_id", [threadId])).rows.map((r) => r.decision);
    expect(await decisions(stopped.threadId)).toEqual(["stopped", "stopped"]);

    const movedOn = await twoCallThread();
    await decide(movedOn.threadId, movedOn.ids[0], true);
    const next = randomUUID();
    await db.adapter.turns.openTurn({ owner, threadId: movedOn.threadId, messageId: next, turnId: "turn-2", message: { id: next, role: "user", content: "never mind" }, leaseMs: 30_000 });
    expect(await decisions(movedOn.threadId)).toEqual(["moved_on", "moved_on"]);
  });

  it("tells a Stop that comes once a turn has claimed the reply that it stopped that turn", async () => {
    const { threadId, ids, reply } = await twoCallThread();
    await decide(threadId, ids[0], true);
    await decide(threadId, ids[1], true);
    const turnId = randomUUID();
    expect(await claim(threadId, reply.id, { turnId })).toMatchObject({ claimed: true });
    expect(await db.adapter.turns.requestStop({ owner, threadId })).toEqual({ turns: [turnId], settled: [] });
  });

  it("offers the due work a reply whose last go failed only after a wait, so replies that keep failing never crowd out one that can go on", async () => {
    const failing = await Promise.all(Array.from({ length: 22 }, () => twoCallThread()));
    for (const { threadId, messageId, ids } of failing) {
      await decide(threadId, ids[0], true);
      await decide(threadId, ids[1], true);
      // As a go that failed just now leaves it (its tool's server down, say).
      await db.pool.query("UPDATE turns SET status = 'failed', updated_at = now() WHERE owner = $1 AND message_id = $2", [owner, messageId]);
    }
    const ready = await twoCallThread();
    await decide(ready.threadId, ready.ids[0], true);
    await decide(ready.threadId, ready.ids[1], false);
    const due = (await db.adapter.approvals.dueReplies({ timeoutMs: DAY_MS, limit: 1_000 })).map((r) => r.replyId);
    expect(due).toContain(ready.reply.id);
    for (const { reply } of failing) expect(due).not.toContain(reply.id);

    // A while later they are offered again, the longest untried first.
    await db.pool.query("UPDATE turns SET updated_at = now() - interval '1 minute' WHERE owner = $1 AND message_id = ANY($2::text[])", [owner, failing.map((f) => f.messageId)]);
    const later = (await db.adapter.approvals.dueReplies({ timeoutMs: DAY_MS, limit: 1_000 })).map((r) => r.replyId);
    for (const { reply } of failing) expect(later).toContain(reply.id);
    expect(later.indexOf(failing[0].reply.id)).toBeLessThan(later.indexOf(ready.reply.id));
  });

  it("expires the calls undecided past their time when it is claimed, and refuses a reply that no longer waits", async () => {
    const { threadId, ids, reply } = await twoCallThread();
    await decide(threadId, ids[0], true);
    expect(await claim(threadId, reply.id, { timeoutMs: 0 })).toMatchObject({
      claimed: true,
      decisions: expect.arrayContaining([{ id: ids[1], toolCallId: "call-2", outcome: "expired" }]),
    });
    expect(await claim(threadId, randomUUID())).toEqual({ claimed: false, refused: "not_waiting" });
    expect(await db.adapter.approvals.claimContinuation({ owner: "someone else", threadId, replyId: reply.id, turnId: "t", leaseMs: null, timeoutMs: DAY_MS })).toBeNull();
  });

  it("is settled by a new message: the calls did not run because the user moved on, and the message follows their results", async () => {
    const { threadId, ids, reply } = await twoCallThread();
    await decide(threadId, ids[0], true);
    const next = randomUUID();
    const opened = await db.adapter.turns.openTurn({ owner, threadId, messageId: next, turnId: "turn-2", message: { id: next, role: "user", content: "never mind" }, leaseMs: 30_000 });
    expect(opened.claim.claimed).toBe(true);
    const [, settled, message] = await db.adapter.get({ owner, threadId });
    expect(settled).toMatchObject({ id: reply.id, status: "complete" });
    expect(settled.parts.slice(2)).toEqual(
      ids.map((id, i) => ({ type: "tool-result", toolCallId: `call-${i + 1}`, toolName: "schedule_reminder", error: denialText("moved_on"), approval: { id, outcome: "moved_on" }, agentName: "Assistant" })),
    );
    expect(message).toMatchObject({ id: next, seq: settled.seq + 4 });
    const { rows } = await db.pool.query("SELECT id, decision FROM tool_approvals WHERE thread_id = $1 ORDER BY tool_call_id", [threadId]);
    // Neither call ran: the approved one is recorded as skipped too, not as a call that was approved and ran.
    expect(rows).toEqual([
      { id: ids[0], decision: "moved_on" },
      { id: ids[1], decision: "moved_on" },
    ]);
    expect(await claim(threadId, reply.id)).toEqual({ claimed: false, refused: "not_waiting" });
  });

  it("is stopped by Stop while nothing runs: its calls did not run because the user stopped the reply", async () => {
    const { threadId, ids, reply } = await twoCallThread();
    expect(await db.adapter.turns.requestStop({ owner, threadId })).toEqual({ turns: [], settled: [reply.id] });
    const [, stopped] = await db.adapter.get({ owner, threadId });
    expect(stopped.status).toBe("stopped");
    expect(stopped.parts.slice(2)).toMatchObject(ids.map((id) => ({ type: "tool-result", error: denialText("stopped"), approval: { id, outcome: "stopped" } })));
    expect(await db.adapter.turns.requestStop({ owner, threadId })).toEqual({ turns: [], settled: [] });
  });

  it("goes with its thread", async () => {
    const { threadId, approvalId } = await waitingThread();
    await db.pool.query("DELETE FROM threads WHERE id = $1", [threadId]);
    expect((await db.pool.query("SELECT 1 FROM tool_approvals WHERE id = $1", [approvalId])).rows).toEqual([]);
  });
});

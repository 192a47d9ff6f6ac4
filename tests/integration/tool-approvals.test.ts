import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import type { Reply } from "@threadline/history/contract";
import type { Part } from "@threadline/history/parts";
import { threadExportSchema } from "@/lib/protocol/thread-export";
import { threadExport } from "@/lib/threads/export";
import { ThreadRepository } from "@/lib/threads/repository";
import { databaseTargets } from "../support/db-targets";

// A tool call that asks for the user's approval is stored with the reply that
// holds it, waits, and is decided once, by its owner, whichever device asks
// first; the reply then goes on under the same message id.
const DAY_MS = 24 * 3_600_000;

describe.each(databaseTargets())("tool approvals on the $name", ({ open }) => {
  let pool: pg.Pool;
  let adapter: PostgresHistoryAdapter;
  let close: () => Promise<void>;
  let owner: string;

  beforeAll(async () => {
    ({ pool, close } = await open());
    adapter = new PostgresHistoryAdapter(pool);
  });
  beforeEach(() => {
    owner = `owner-${randomUUID()}`;
  });
  afterAll(() => close());

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
    const { threadId } = await adapter.createThread({ owner });
    await adapter.appendUserMessage({ owner, threadId, turnId: "turn-1", message: { id: randomUUID(), role: "user", content: "remind me" } });
    const approvalId = randomUUID();
    const reply: Reply = { id: randomUUID(), role: "assistant", status: "waiting", parts: [{ type: "text", text: "I will ask first.", agentName: "Assistant" }, call(approvalId)] };
    await adapter.appendResults({ owner, threadId, reply });
    return { threadId, approvalId, reply };
  }

  const decide = (approvalId: string, approved: boolean, more: { reason?: string; timeoutMs?: number; as?: string } = {}) =>
    adapter.approvals.decide({ owner: more.as ?? owner, approvalId, approved, reason: more.reason, timeoutMs: more.timeoutMs ?? DAY_MS });

  it("stores the waiting reply with its call's approval, and reads both back", async () => {
    const { threadId, approvalId, reply } = await waitingThread();
    const [, stored] = await adapter.get({ owner, threadId });
    expect(stored).toMatchObject({ id: reply.id, status: "waiting" });
    expect(stored.parts[1]).toEqual(call(approvalId));
    const { rows } = await pool.query("SELECT thread_id, message_id, tool_call_id, tool_name, decision FROM tool_approvals WHERE id = $1", [approvalId]);
    expect(rows).toEqual([{ thread_id: threadId, message_id: reply.id, tool_call_id: "call-1", tool_name: "schedule_reminder", decision: null }]);
  });

  it("keeps the first decision: a second one is told how it went and changes nothing", async () => {
    const { threadId, approvalId, reply } = await waitingThread();
    expect(await decide(approvalId, false, { reason: "not today" })).toEqual({
      threadId,
      messageId: reply.id,
      outcome: "denied",
      reason: "not today",
      decidedNow: true,
    });
    expect(await decide(approvalId, true)).toMatchObject({ outcome: "denied", reason: "not today", decidedNow: false });
  });

  it("lets exactly one of two decisions at once make it", async () => {
    const { approvalId } = await waitingThread();
    const both = await Promise.all([decide(approvalId, true), decide(approvalId, false, { reason: "no" })]);
    expect(both.filter((d) => d?.decidedNow)).toHaveLength(1);
    expect(new Set(both.map((d) => d?.outcome)).size).toBe(1);
  });

  it("finds no approval for another owner, an unknown id or one that is no id", async () => {
    const { approvalId } = await waitingThread();
    expect(await decide(approvalId, true, { as: `owner-${randomUUID()}` })).toBeNull();
    expect(await decide(randomUUID(), true)).toBeNull();
    expect(await decide("not-an-id", true)).toBeNull();
    expect((await pool.query("SELECT decision FROM tool_approvals WHERE id = $1", [approvalId])).rows).toEqual([{ decision: null }]);
  });

  it("records an approval whose time is up as expired, whatever the late decision said", async () => {
    const { approvalId } = await waitingThread();
    expect(await decide(approvalId, true, { reason: "sure", timeoutMs: 0 })).toMatchObject({ outcome: "expired", decidedNow: true });
    expect(await decide(approvalId, true)).toMatchObject({ outcome: "expired", decidedNow: false });
    expect((await pool.query("SELECT reason FROM tool_approvals WHERE id = $1", [approvalId])).rows).toEqual([{ reason: null }]);
  });

  it("goes on under the same message once decided: the new parts follow the call, the whole reply takes its new status", async () => {
    const { threadId, approvalId, reply } = await waitingThread();
    await decide(approvalId, true);
    const result: Part = {
      type: "tool-result",
      toolCallId: "call-1",
      toolName: "schedule_reminder",
      output: { scheduled: true },
      approval: { id: approvalId, outcome: "approved" },
      agentName: "Assistant",
    };
    const goneOn: Reply = { ...reply, status: "complete", parts: [...reply.parts, result, { type: "text", text: "Done.", agentName: "Assistant" }] };
    await adapter.appendResults({ owner, threadId, reply: goneOn });
    const messages = await adapter.get({ owner, threadId });
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({ id: reply.id, status: "complete", parts: goneOn.parts });
    const { rows } = await pool.query("SELECT message_count FROM threads WHERE id = $1", [threadId]);
    expect(rows).toEqual([{ message_count: 2 }]);
  });

  it("is exported waiting, and imported as stopped with its call no longer waiting: the approval was the exporting server's", async () => {
    const { threadId, approvalId } = await waitingThread();
    const repo = new ThreadRepository(pool);
    const file = threadExportSchema.parse(JSON.parse(JSON.stringify(threadExport(await repo.versionTree(owner, threadId), new Date()))));
    expect(file.messages[1]).toMatchObject({ status: "waiting", parts: [expect.anything(), call(approvalId)] });
    const importer = `owner-${randomUUID()}`;
    const imported = await repo.import(importer, file);
    const [, reply] = await adapter.get({ owner: importer, threadId: imported.id });
    expect(reply.status).toBe("stopped");
    const { approval: _, ...plain } = call(approvalId) as Extract<Part, { type: "tool-call" }>;
    expect(reply.parts[1]).toEqual(plain);
    expect((await pool.query("SELECT count(*)::int AS n FROM tool_approvals WHERE thread_id = $1", [imported.id])).rows).toEqual([{ n: 0 }]);
  });

  it("goes with its thread", async () => {
    const { threadId, approvalId } = await waitingThread();
    await pool.query("DELETE FROM threads WHERE id = $1", [threadId]);
    expect((await pool.query("SELECT 1 FROM tool_approvals WHERE id = $1", [approvalId])).rows).toEqual([]);
  });
});

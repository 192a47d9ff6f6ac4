import "server-only";
import type pg from "pg";
import type { ApprovalDecision, ApprovalStore, ThreadScope } from "./contract";
import type { ApprovalOutcome } from "./parts";
import { isUuid } from "./uuid";

/**
 * The adapter's approvals (see ApprovalStore): a row of tool_approvals per
 * call that asks, written with the reply that holds the call
 * (db/functions/threadline_append_reply.sql), decided once
 * (db/functions/threadline_decide_approval.sql).
 */
export class PostgresApprovalStore implements ApprovalStore {
  constructor(private readonly pool: pg.Pool) {}

  async decide({
    owner,
    approvalId,
    approved,
    reason,
    timeoutMs,
  }: ThreadScope & { approvalId: string; approved: boolean; reason?: string; timeoutMs: number }): Promise<ApprovalDecision | null> {
    if (!isUuid(approvalId)) return null;
    const { rows } = await this.pool.query<{ thread_id: string; message_id: string; decision: ApprovalOutcome; reason: string | null; decided_now: boolean }>(
      "SELECT thread_id, message_id, decision, reason, decided_now FROM threadline_decide_approval($1, $2, $3, $4, make_interval(secs => $5))",
      [approvalId, owner, approved, reason ?? null, timeoutMs / 1000],
    );
    if (rows.length === 0) return null;
    const row = rows[0];
    return {
      threadId: row.thread_id,
      messageId: row.message_id,
      outcome: row.decision,
      ...(row.reason !== null ? { reason: row.reason } : {}),
      decidedNow: row.decided_now,
    };
  }
}

import "server-only";
import type pg from "pg";
import type { ApprovalDecision, ApprovalStore, ContinuationClaim, DecidedCall, ThreadScope, ThreadsChanged } from "./contract";
import type { ApprovalOutcome } from "./parts";
import { isUuid } from "./uuid";

/**
 * The adapter's approvals (see ApprovalStore): a row of tool_approvals per
 * call that asks, written with the reply that holds the call
 * (db/functions/threadline_append_reply.sql), decided once
 * (db/functions/threadline_decide_approval.sql), gone on with by one turn
 * (db/functions/threadline_claim_continuation.sql).
 */
/** How long a reply whose last go failed waits before the due work tries it again. */
const FAILED_GO_WAIT_S = 5;

export class PostgresApprovalStore implements ApprovalStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly changed: ThreadsChanged,
    /** This process's runner key, as the turn store's (postgres.ts RunnerKey). */
    private readonly runner: () => Promise<string | null>,
  ) {}

  async decide({
    owner,
    threadId,
    approvalId,
    approved,
    reason,
    timeoutMs,
    timeZone,
  }: ThreadScope & { threadId: string; approvalId: string; approved: boolean; reason?: string; timeoutMs: number; timeZone?: string }): Promise<ApprovalDecision | null> {
    if (!isUuid(approvalId) || !isUuid(threadId)) return null;
    const { rows } = await this.pool.query<{
      message_id: string;
      decision: ApprovalOutcome;
      reason: string | null;
      decided_now: boolean;
      pending: number | null;
    }>(
      "SELECT message_id, decision, reason, decided_now, pending FROM threadline_decide_approval($1, $2, $3, $4, $5, make_interval(secs => $6), $7)",
      [approvalId, threadId, owner, approved, reason ?? null, timeoutMs / 1000, timeZone ?? null],
    );
    if (rows.length === 0) return null;
    const row = rows[0];
    return {
      messageId: row.message_id,
      outcome: row.decision,
      ...(row.reason !== null ? { reason: row.reason } : {}),
      decidedNow: row.decided_now,
      ...(row.pending !== null ? { pending: row.pending } : {}),
    };
  }

  async claimContinuation({
    owner,
    threadId,
    replyId,
    turnId,
    leaseMs,
    timeoutMs,
  }: ThreadScope & { threadId: string; replyId: string; turnId: string; leaseMs: number | null; timeoutMs: number }): Promise<ContinuationClaim | null> {
    if (!isUuid(threadId)) return null;
    const runner = leaseMs === null ? null : await this.runner();
    const { rows } = await this.pool.query<{
      refused: "not_waiting" | "pending" | "busy" | null;
      message_id: string | null;
      decisions: DecidedCall[] | null;
      round: number | null;
    }>(
      "SELECT refused, message_id, decisions, round FROM threadline_claim_continuation($1, $2, $3, $4, $5, $6, make_interval(secs => $7))",
      [owner, threadId, replyId, turnId, leaseMs, runner, timeoutMs / 1000],
    );
    if (rows.length === 0) return null;
    const [row] = rows;
    if (row.refused !== null || row.message_id === null) return { claimed: false, refused: row.refused ?? "not_waiting" };
    this.changed(owner, threadId);
    return { claimed: true, messageId: row.message_id, decisions: row.decisions ?? [], round: row.round ?? 1 };
  }

  async dueReplies({ timeoutMs, limit }: { timeoutMs: number; limit: number }) {
    // The longest untried first, and one whose last go failed (its tool's server down, say) not again for a
    // while: replies that keep failing never hold the places of those that can go on, nor fill the log each second.
    const { rows } = await this.pool.query<{ owner: string; thread_id: string; message_id: string }>(
      `SELECT t.owner, m.thread_id, m.message_id
         FROM messages m JOIN threads t ON t.id = m.thread_id
         LEFT JOIN turns last ON last.owner = t.owner AND last.message_id = m.parent_message_id
        WHERE m.status = 'waiting' AND m.part_index = 0
          AND NOT EXISTS (SELECT 1 FROM tool_approvals a
                           WHERE a.thread_id = m.thread_id AND a.message_id = m.message_id AND a.decision IS NULL
                             AND a.requested_at + make_interval(secs => $1) >= now())
          AND NOT EXISTS (SELECT 1 FROM turns tu WHERE tu.thread_id = m.thread_id AND threadline_turn_running(tu))
          AND (last.status IS DISTINCT FROM 'failed' OR last.updated_at < now() - make_interval(secs => $3))
        ORDER BY last.updated_at NULLS FIRST, m.thread_id
        LIMIT $2`,
      [timeoutMs / 1000, limit, FAILED_GO_WAIT_S],
    );
    return rows.map((row) => ({ owner: row.owner, threadId: row.thread_id, replyId: row.message_id }));
  }
}

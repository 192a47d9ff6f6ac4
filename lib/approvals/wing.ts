import "server-only";
import type { DecidedSoFar } from "@/lib/protocol/threads";
import type { Wing } from "@/lib/wing";

// Approvals' part of a thread's life: a call that asked first waits in
// tool_approvals (the history package's approval store writes it) until its
// owner decides; the approvals go with their thread (by cascade).

export const approvalsWing: Wing = {
  name: "approvals",
  tables: ["tool_approvals"],
  thread: {
    // A fork's copy of a reply that waits is stopped, each call still
    // undecided answered as not decided in the original thread: the approvals
    // are the source's, which the source alone decides, so the copy can
    // neither be decided nor go on.
    async fork(tx, { fork }) {
      await tx.query("SELECT threadline_settle_waiting($1, 'forked', $2)", [
        fork,
        "This was not decided in the original thread before it was forked, so it did not run in this copy.",
      ]);
    },
    // A page drawn while one of two calls is decided shows that one decided
    // (the reply goes on once the other is): one read, only for a page that
    // ends waiting.
    async page(db, threadId, messages) {
      const waiting = messages.find((m) => m.status === "waiting");
      if (!waiting) return messages;
      const { rows } = await db.query<{ id: string; decision: string; reason: string | null }>(
        "SELECT id, decision, reason FROM tool_approvals WHERE thread_id = $1 AND message_id = $2 AND decision IS NOT NULL",
        [threadId, waiting.id],
      );
      if (rows.length === 0) return messages;
      const decided: DecidedSoFar = Object.fromEntries(
        rows.map((r) => [r.id, { approved: r.decision === "approved", ...(r.reason !== null ? { reason: r.reason } : {}) }]),
      );
      return messages.map((m) => (m.id === waiting.id ? { ...m, decided } : m));
    },
  },
};

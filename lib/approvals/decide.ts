import "server-only";
import type { ApprovalStore } from "@threadline/history/contract";
import { AppError } from "@threadline/history/errors";
import type { ApprovalDecisionResponse } from "@/lib/protocol/approvals";
import type { TurnRuntime } from "@/lib/runtime/types";

export interface DecideApproval {
  owner: string;
  threadId: string;
  approvalId: string;
  approved: boolean;
  reason?: string;
  timeZone?: string;
}

const notFoundApproval = () => new AppError("not_found:approval", "No such approval in this thread.");

/**
 * The owner's decision on a call of their thread that asked first. The first
 * decision stands: a second is refused, saying how the first went. Once the
 * reply's last undecided call is decided, the reply goes on (on the runtime:
 * its start is all this waits for).
 */
export async function decideApproval(
  request: DecideApproval,
  deps: { approvals: ApprovalStore; runtime: TurnRuntime; timeoutMs: number },
): Promise<ApprovalDecisionResponse> {
  const { owner, threadId, approvalId, approved, reason } = request;
  const decision = await deps.approvals.decide({ owner, threadId, approvalId, approved, reason, timeoutMs: deps.timeoutMs, timeZone: request.timeZone });
  if (!decision) throw notFoundApproval();
  if (!decision.decidedNow) {
    throw new AppError("conflict:already_decided", `This was already decided: ${describe(decision.outcome, decision.reason)}.`);
  }
  if (decision.pending === 0) {
    // A reply that cannot go on now (another turn runs) goes on when that turn has ended; the decision stands either way.
    await deps.runtime.goOn({ owner, threadId, replyId: decision.messageId }).catch((error) => {
      console.error(`[thread ${threadId}] could not go on after a decision:`, error);
    });
  }
  return { approvalId, outcome: decision.outcome, ...(decision.reason ? { reason: decision.reason } : {}) };
}

function describe(outcome: ApprovalDecisionResponse["outcome"], reason?: string): string {
  switch (outcome) {
    case "approved":
      return "approved";
    case "denied":
      return reason ? `denied (${reason})` : "denied";
    case "expired":
      return "it expired";
    case "stopped":
      return "the reply was stopped";
    case "moved_on":
      return "a new message skipped it";
  }
}

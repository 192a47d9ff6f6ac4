import "server-only";
import { randomUUID } from "node:crypto";
import { NonRetriableError } from "inngest";
import type { SessionSecret } from "@/lib/auth/secret";
import { isAuthorizedCompaction } from "@/lib/auth/turn-authorization";
import { compactThread } from "@/lib/agent/compaction";
import type { Network } from "@/lib/agent/network/network";
import type { StepRunner } from "@/lib/agent/turn/steps";
import type { TurnHistory } from "@threadline/history/contract";
import type { InngestClient } from "@/lib/inngest/client";
import { THREAD_COMPACT_EVENT, type ThreadCompactEventData } from "@/lib/protocol/turn-events";

/**
 * Compacts a thread after a turn asked for it: a function of its own, so the
 * thread's next turn (one at a time per thread) never queues behind it. Each
 * of its steps (plan, summarize, store) runs once; a retried store finds the
 * summary already there and stores nothing. An event this app did not sign
 * (a forged owner or thread) is refused before any of them.
 */
export function createCompactThreadFunction(
  inngest: InngestClient,
  deps: { history: () => TurnHistory; network: () => Network; sessionSecret: SessionSecret },
) {
  return inngest.createFunction(
    {
      id: "compact-thread",
      triggers: [{ event: THREAD_COMPACT_EVENT }],
      concurrency: [{ key: "event.data.threadId", limit: 1 }],
      retries: 3,
    },
    async ({ event, step }) => {
      const { owner, threadId, authorization } = event.data as ThreadCompactEventData;
      if (!isAuthorizedCompaction({ owner, threadId }, authorization, await deps.sessionSecret())) {
        throw new NonRetriableError("Refused a compaction event that this app did not sign.");
      }
      const runStep: StepRunner = (id, work) => step.run(id, work) as ReturnType<typeof work>;
      const stored = await compactThread(
        { owner, threadId },
        // Inngest retries a failed step durably; the SDK retrying inside it too would multiply the wait.
        { history: deps.history(), network: { ...deps.network(), maxRetries: 0 }, step: runStep, newId: randomUUID },
      );
      return { summarySeq: stored?.seq ?? null };
    },
  );
}

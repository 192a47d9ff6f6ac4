import "server-only";
import { NonRetriableError } from "inngest";
import type { InngestClient } from "@/lib/inngest/client";
import { authorizeCompaction, authorizeLesson } from "@/lib/auth/turn-authorization";
import { CHAT_TURN_RETRIES, DurableTurn, refusalOf, type DurableTurnDeps } from "@/lib/inngest/durable-turn";
import {
  CHAT_TURN_EVENT,
  MEMORY_LESSON_EVENT,
  REPLY_DECIDED_EVENT,
  THREAD_COMPACT_EVENT,
  type ChatTurnEventData,
  type MemoryLessonEventData,
  type ReplyDecidedEventData,
  type ThreadCompactEventData,
} from "@/lib/protocol/turn-events";

/** The function's id; Inngest's is "<app id>-" and this. */
export const CHAT_TURN_FUNCTION_ID = "chat-turn";

/**
 * Runs one chat turn durably: each side effect of the turn is a step (its id
 * set by lib/agent/turn/turn.ts), one turn at a time per thread. A refusal ends
 * the run at once; a failure is retried, and the last failure ends the
 * client's stream. A run that fails for good without ending its turn (its
 * process died on the last attempt) has it ended by its failure handler, so
 * the thread takes the next message (a run cancelled instead:
 * chat-turn-cancelled.ts).
 */
export function createChatTurnFunction(inngest: InngestClient, deps: DurableTurnDeps) {
  return inngest.createFunction(
    {
      id: CHAT_TURN_FUNCTION_ID,
      triggers: [{ event: CHAT_TURN_EVENT }],
      concurrency: [{ key: "event.data.concurrencyKey", limit: 1 }],
      retries: CHAT_TURN_RETRIES,
      onFailure: async ({ event, error, step, attempt }) => {
        const turn = await DurableTurn.open(event.data.event.data as ChatTurnEventData, deps, { step, attempt });
        await turn?.endFailedRun({ refused: error.name === "NonRetriableError" });
      },
    },
    async ({ event, step, attempt, maxAttempts }) => {
      const turn = await DurableTurn.open(event.data as ChatTurnEventData, deps, { step, attempt, maxAttempts });
      if (!turn) throw new NonRetriableError("Refused a turn event that this app did not sign.");
      try {
        let outcome = await turn.answer();
        if (outcome.settledReply) {
          // The run that waits for that reply's decisions ends once it sees it no longer waits.
          const wake: ReplyDecidedEventData = { owner: turn.owner, threadId: outcome.threadId, replyId: outcome.settledReply };
          await step.sendEvent("wake-settled", { name: REPLY_DECIDED_EVENT, data: wake });
        }
        // A reply that waits for the user's decisions goes on in this run once they are made, as often as it asks again.
        for (let round = 1; outcome.status === "waiting" && outcome.reply && round <= turn.maxRounds; round++) {
          const next = await turn.goOn(outcome.reply.id, round);
          if (!next) break;
          outcome = next;
        }
        // The client's stream has its finish by now: the title waits for nothing and nothing waits for it.
        await turn.nameThread(outcome);
        if (outcome.compact) {
          const thread = { owner: turn.owner, threadId: outcome.threadId };
          const compaction: ThreadCompactEventData = { ...thread, authorization: authorizeCompaction(thread, await deps.sessionSecret()) };
          await step.sendEvent("request-compaction", { name: THREAD_COMPACT_EVENT, data: compaction });
        }
        // A reply stored complete teaches the person's memory, in a run of its own: nothing here waits for it.
        if (outcome.status === "complete" && outcome.reply && deps.learnsMemory?.()) {
          const lesson = { owner: turn.owner, threadId: outcome.threadId, replyId: outcome.reply.id };
          const data: MemoryLessonEventData = { ...lesson, authorization: authorizeLesson(lesson, await deps.sessionSecret()) };
          // Its id lets Inngest drop a second sending of it; the lesson's claim drops one it delivers twice.
          await step.sendEvent("request-memory-lesson", { id: `memory-lesson-${lesson.replyId}`, name: MEMORY_LESSON_EVENT, data });
        }
        return { threadId: outcome.threadId, historySource: outcome.historySource, status: outcome.status, replyId: outcome.reply?.id ?? null };
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal) {
          if (!refusal.announced) await step.run("announce-refusal", () => turn.announce(refusal));
          throw new NonRetriableError(refusal.message, { cause: error });
        }
        if (turn.failsForGood(error)) await turn.fail();
        throw error;
      }
    },
  );
}

import "server-only";
import { NonRetriableError } from "inngest";
import type { SessionSecret } from "@/lib/auth/secret";
import { isAuthorizedLesson } from "@/lib/auth/turn-authorization";
import type { StepRunner } from "@/lib/agent/turn/steps";
import type { InngestClient } from "@/lib/inngest/client";
import { learnFromReply, type LearningDeps } from "@/lib/memory/learning";
import type { LessonStore } from "@/lib/memory/lesson-store";
import { MEMORY_LESSON_EVENT, type MemoryLessonEventData } from "@/lib/protocol/turn-events";

/**
 * Learns memories from a reply once it is stored: a function of its own, so
 * neither the reply nor the thread's next turn waits for it, one at a time
 * per person (their memories change in order). Its steps (read, ask, store)
 * each run once; a store run again finds the lesson done and changes
 * nothing. An event this app did not sign is refused before any of them.
 */
export function createLearnMemoryFunction(
  inngest: InngestClient,
  deps: { memoryLessons: () => LessonStore; memoryLearning: () => Omit<LearningDeps, "step" | "lessons">; sessionSecret: SessionSecret },
) {
  return inngest.createFunction(
    {
      id: "learn-memory",
      triggers: [{ event: MEMORY_LESSON_EVENT }],
      concurrency: [{ key: "event.data.owner", limit: 1 }],
      retries: 2,
    },
    async ({ event, step }) => {
      const { owner, threadId, replyId, authorization } = event.data as MemoryLessonEventData;
      if (!isAuthorizedLesson({ owner, threadId, replyId }, authorization, await deps.sessionSecret())) {
        throw new NonRetriableError("Refused a memory lesson event that this app did not sign.");
      }
      const runStep: StepRunner = (id, work) => step.run(id, work) as ReturnType<typeof work>;
      // Inngest delivers an event at least once: the lesson is this event's, or another's that came first.
      const claimant = event.id ?? `${threadId}/${replyId}`;
      const outcome = await learnFromReply({ owner, threadId, replyId }, { ...deps.memoryLearning(), lessons: deps.memoryLessons(), step: runStep, claimant });
      return { outcome };
    },
  );
}

import "server-only";
import { randomUUID } from "node:crypto";
import { generateText } from "ai";
import { AppError } from "@threadline/history/errors";
import { tokensFromResult } from "@threadline/history/usage";
import { inputTokensOf, reservedCall, type CallToReserve } from "@/lib/agent/model/spend";
import { utilityModelIdOf, utilityModelOf, type Network } from "@/lib/agent/network/network";
import type { StepRunner } from "@/lib/agent/turn/steps";
import { MEMORY_INSTRUCTIONS, memoryChanges, memoryRequestText, type MemoryChanges } from "@/lib/model/memory-request.mjs";
import { MEMORY_REQUEST, requestKindHeaders } from "@/lib/model/request-kind.mjs";
import { MAX_MEMORY_CHARS } from "@/lib/protocol/memory";
import type { Lesson, LessonStore } from "./lesson-store";

// Learning, off the hot path. After a reply is stored, a lesson reads the
// exchange it ends and the person's memories kept so far, both bounded
// (lesson-store.ts, LESSON_BOUNDS), asks the utility model what to add,
// update or delete, and stores that. Three steps (read, ask, store), each run
// once by a durable runtime: a lesson taken over after a crash asks the
// model again only if the crash came before the answer was kept. The store
// and the lesson's end are one transaction, keyed by the reply: however
// often a lesson runs, the memories change once.
//
// It never holds up a reply: the inline runtime starts it once the turn has
// released the thread, Inngest in a function of its own. Its model call is
// reserved on the person's budget like any other (purpose "memory"), and a
// person past their budget learns nothing. Lessons are rate-limited per
// person; one over the limit learns nothing (the reply is not held for it).

/** The most a lesson's answer may write: a few short facts as JSON. */
const LESSON_OUTPUT_TOKENS = 600;

/** What a lesson needs: the network (its utility model and spend gate), the lessons' rows, its step runner. */
export interface LearningDeps {
  network: Network;
  lessons: LessonStore;
  step: StepRunner;
  /** The most memories a person keeps (MEMORY_PER_IDENTITY). */
  maxMemories: number;
  /** Counts one lesson of the owner's; throws a 429 AppError past the limit. */
  limit: (owner: string) => Promise<void>;
  /** How long the model may take to answer. */
  timeoutMs: number;
  /** Who runs it, where a lesson may be asked for twice (an Inngest event's id): only the first to claim it learns. */
  claimant?: string;
}

type Asked = { changes: MemoryChanges } | { skip: string };

/** Learns from the reply, once; what it came to, in words ("learned 1, updated 0, deleted 0", "skipped: a temporary chat"). */
export async function learnFromReply(lesson: Lesson, deps: LearningDeps): Promise<string> {
  const { step, lessons } = deps;
  const read = await step("memory:read", async () => {
    if (deps.claimant !== undefined && !(await lessons.claim(lesson, deps.claimant))) return { twice: true as const };
    const context = await lessons.context(lesson);
    if ("skip" in context) return context;
    try {
      await deps.limit(lesson.owner);
    } catch (error) {
      if (error instanceof AppError && error.status === 429) return { skip: "over the learning rate limit" };
      throw error;
    }
    return { request: memoryRequestText(context.memories, context.exchange), userMessageId: context.userMessageId, shown: context.memories.map((m) => m.id) };
  });
  // Another run has it: it is neither learned nor ended here.
  if ("twice" in read) return "asked for twice: the first run learns";
  if ("skip" in read) return step("memory:store", () => lessons.finish(lesson, read, deps.maxMemories));
  const asked: Asked = await step("memory:ask", () => ask(lesson, read.request, deps));
  const learned = "skip" in asked ? asked : { changes: asked.changes, userMessageId: read.userMessageId, shown: read.shown };
  return step("memory:store", () => lessons.finish(lesson, learned, deps.maxMemories));
}

/** The model's changes, its call reserved and settled on the owner's bill; a skip when the budget refuses it or the answer holds none. */
async function ask(lesson: Lesson, request: string, { network, timeoutMs }: LearningDeps): Promise<Asked> {
  // Made inside the step: a durable runtime's replay returns the same call id, reserved and stored once.
  const call: CallToReserve = {
    id: randomUUID(),
    owner: lesson.owner,
    threadId: lesson.threadId,
    purpose: "memory",
    model: utilityModelIdOf(network),
    inputTokens: inputTokensOf(MEMORY_INSTRUCTIONS, [{ role: "user", content: request }]),
    outputCap: LESSON_OUTPUT_TOKENS,
    outputMin: LESSON_OUTPUT_TOKENS,
  };
  const ran = await reservedCall(
    network.spend,
    call,
    (maxOutputTokens) =>
      generateText({
        model: utilityModelOf(network),
        system: MEMORY_INSTRUCTIONS,
        prompt: request,
        headers: requestKindHeaders(MEMORY_REQUEST),
        maxOutputTokens,
        // A durable runtime retries the whole step; the SDK retrying inside it too would multiply the wait.
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(timeoutMs),
      }),
    (result) => ({ tokens: tokensFromResult(result.usage), exact: true }),
  );
  if ("refusal" in ran) return { skip: ran.refusal.message };
  await network.spend?.settled?.(lesson.owner);
  const changes = memoryChanges(ran.result.text, MAX_MEMORY_CHARS);
  return changes ? { changes } : { skip: "the model's answer held no changes" };
}

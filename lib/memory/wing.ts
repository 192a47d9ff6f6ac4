import "server-only";
import type { RateLimits } from "@/lib/rate-limit";
import type { Network } from "@/lib/agent/network/network";
import type { TurnMemory } from "@/lib/agent/model/turn-memory";
import { once, type Wing, type WingParts } from "@/lib/wing";
import { LessonRunner } from "./lesson-runner";
import { LessonStore } from "./lesson-store";
import { Memories } from "./memories";
import { adoptMemories, markSourceDeleted, MemoryStore } from "./memory-store";
import { memoriesUsedIn, MemoryRecall } from "./recall";
import { memoryToolset } from "./memory-tools";
import type { MemorySettings } from "./settings";

// Memory across conversations: short facts about a person, each with the
// message it was learned from or added by hand; learned after replies
// (./learning.ts), given to the model at a turn's start (./recall.ts), and
// recorded with each reply that was given them. Deleting a thread keeps its
// memories (their source says the thread is gone); a guest's go with them to
// the account they sign up for. A temporary chat neither reads nor writes.

/** What the memory takes from the app. */
interface MemoryApp {
  config: MemorySettings;
  memoryStore(): MemoryStore;
  network(): Network;
  rateLimits(): Pick<RateLimits, "limitMemoryLesson">;
  /** This process's runner lock key (lib/db/runner-lock.ts): a lesson it takes dies with it. */
  runnerKey(): Promise<string | null>;
}

function services({ config, pool }: WingParts<MemorySettings>, app: MemoryApp) {
  const store = once(() => new MemoryStore(pool));
  const lessons = once(() => new LessonStore(pool, () => app.runnerKey()));
  const learning = () => ({
    network: { ...app.network(), maxRetries: 0 },
    maxMemories: config.MEMORY_PER_IDENTITY,
    limit: (owner: string) => app.rateLimits().limitMemoryLesson(owner),
    timeoutMs: config.MEMORY_LESSON_TIMEOUT_SECONDS * 1000,
  });
  return {
    /** The people's memories, as they see and change them. */
    memories: once(() => new Memories(store(), config)),
    memoryStore: store,
    /** What a turn gives the model of them; none with MEMORY=off. */
    turnMemory: once((): TurnMemory | undefined => (config.MEMORY === "off" ? undefined : new MemoryRecall(pool, config))),
    /** The lessons' rows: what each reply taught, learned once. */
    memoryLessons: lessons,
    /** What a lesson needs besides its rows and steps (an Inngest run's steps are its own). */
    memoryLearning: learning,
    /** Whether replies teach memories (MEMORY and MEMORY_LEARNING on). */
    learnsMemory: (): boolean => config.MEMORY === "on" && config.MEMORY_LEARNING === "on",
    /** The inline runtime's lessons; none unless replies teach memories. */
    lessonRunner: once((): LessonRunner | undefined =>
      config.MEMORY === "on" && config.MEMORY_LEARNING === "on" ? new LessonRunner(lessons(), learning) : undefined,
    ),
  };
}

export const memoryWing: Wing<MemoryApp, ReturnType<typeof services>, MemorySettings> = {
  name: "memory",
  tables: ["memories", "memory_settings", "memory_lessons", "memory_uses", "temporary_threads"],
  services,
  // The agents' remember and forget, unless the install keeps no memories.
  toolset: (app) => (app.config.MEMORY === "on" ? memoryToolset({ store: app.memoryStore(), max: app.config.MEMORY_PER_IDENTITY }) : undefined),
  thread: {
    async delete(tx, { threadId }) {
      await markSourceDeleted(tx, threadId);
    },
    async adopt(tx, from, to) {
      await adoptMemories(tx, from, to);
      await tx.query("UPDATE memory_lessons SET owner = $2 WHERE owner = $1", [from, to]);
    },
    // The replies of a page that were given memories name them.
    async page(db, threadId, messages) {
      const replies = messages.filter((m) => m.role === "assistant").map((m) => m.id);
      if (replies.length === 0) return messages;
      const used = await memoriesUsedIn(db, threadId, replies);
      return messages.map((m) => (used[m.id] ? { ...m, memoriesUsed: used[m.id] } : m));
    },
    timeline: async (db, { threadId }) => ({ memoriesUsed: await memoriesUsedIn(db, threadId) }),
    listed: {
      sql: "EXISTS (SELECT 1 FROM temporary_threads tt WHERE tt.thread_id = t.id)",
      item: (value) => (value === true ? { temporary: true } : {}),
      onThread: true,
    },
  },
};

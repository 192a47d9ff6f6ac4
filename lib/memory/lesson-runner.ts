import "server-only";
import { learnFromReply, type LearningDeps } from "./learning";
import type { Lesson, LessonStore } from "./lesson-store";

// The inline runtime's lessons: each taken by the server that stored the
// reply as soon as the turn is over, and by any server's due work
// (lib/runtime/due-work.ts) once its taker is gone (its process died: its
// lock key is free) or its lease ran out. A lesson is tried a few times, some
// seconds apart, then given up (the reply then teaches nothing).

/** How long a lesson is its taker's: past the model's timeout, so a live taker is never overtaken. */
const LEASE_MARGIN_MS = 30_000;
/** How many times a lesson is taken before it fails for good. */
export const LESSON_ATTEMPTS = 3;
/** How long a failed lesson waits to be taken again. */
const RETRY_MS = 5_000;
/** Lessons one server runs at once: each is a model call of a few seconds. */
const AT_ONCE = 4;

export class LessonRunner {
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly lessons: LessonStore,
    private readonly learning: () => Omit<LearningDeps, "step" | "lessons">,
  ) {}

  private get leaseMs(): number {
    return this.learning().timeoutMs + LEASE_MARGIN_MS;
  }

  /** After a reply: its lesson, taken here at once, run off the turn's path. */
  learnLater(lesson: Lesson): void {
    void this.lessons
      .enqueue(lesson, this.leaseMs)
      .then((taken) => {
        if (taken) this.run(lesson);
      })
      .catch((error: unknown) => console.error(`[memory] no lesson for reply ${lesson.replyId}:`, message(error)));
  }

  /** Takes the due lessons this server has room for (the due work's look). */
  async runDue(): Promise<void> {
    const room = AT_ONCE - this.running.size;
    if (room <= 0) return;
    for (const lesson of await this.lessons.takeDue(room, this.leaseMs, LESSON_ATTEMPTS)) this.run(lesson);
  }

  /** Once the lessons running here have ended (a server shutting down, a test). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private run(lesson: Lesson): void {
    const key = `${lesson.threadId}\n${lesson.replyId}`;
    if (this.running.has(key)) return;
    const ran = learnFromReply(lesson, { ...this.learning(), lessons: this.lessons, step: this.lessons.steps(lesson) })
      .then(
        (outcome) => console.info(`[memory] reply ${lesson.replyId}: ${outcome}`),
        async (error: unknown) => {
          console.error(`[memory] reply ${lesson.replyId}: the lesson failed; it is tried again:`, message(error));
          await this.lessons.release(lesson, message(error), RETRY_MS).catch(() => {});
        },
      )
      .finally(() => this.running.delete(key));
    this.running.set(key, ran);
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

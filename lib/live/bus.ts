import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";

/**
 * What a process's open streams wait for, by topic and key:
 * - "progress", by turn id: the turn wrote more of its reply (turn_progress);
 * - "threads", by owner: a thread of theirs started or ended a turn, or was
 *   renamed or deleted;
 * - "ask", by turn id: a reader wants the turn's progress written (its runner
 *   keeps it in memory until someone asks: lib/live/progress-writer.ts).
 * A wake-up says only that something changed; whoever wakes reads what from
 * the database, so a wake-up heard twice costs a read and one missed is made
 * good by the reader's own polling.
 *
 * News comes from this process (emit) and, when a Postgres listener is open,
 * from every other process (PROGRESS_CHANNEL, THREADS_CHANNEL, ASK_CHANNEL). A process
 * hears its own NOTIFYs too: those carrying its own origin are dropped, since
 * it has told its streams already.
 */
export class LiveBus {
  /** Names this process in the NOTIFYs it sends. */
  readonly origin = randomUUID();
  /** Set once a Postgres listener is open: other processes' news then arrives here. */
  crossProcess = false;
  private readonly waiting = new Map<string, Set<Wake>>();

  /** Calls `wake` on every piece of news for (topic, key) until the returned function is called. */
  on(topic: LiveTopic, key: string, wake: Wake): () => void {
    const name = `${topic}:${key}`;
    let set = this.waiting.get(name);
    if (!set) this.waiting.set(name, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.waiting.get(name) === set) this.waiting.delete(name);
    };
  }

  /** `detail` says what changed when the news knows it (the thread, for "threads"). */
  emit(topic: LiveTopic, key: string, detail?: string): void {
    for (const wake of this.waiting.get(`${topic}:${key}`) ?? []) wake(detail);
  }

  /** A turn_progress NOTIFY from any process. */
  hearProgress(payload: string): void {
    this.hearTurn("progress", payload);
  }

  /** An ask for a turn's progress, from any process. */
  hearAsk(payload: string): void {
    this.hearTurn("ask", payload);
  }

  /** What this process sends on PROGRESS_CHANNEL or ASK_CHANNEL about a turn. */
  turnNotice(turnId: string): string {
    return JSON.stringify({ origin: this.origin, turnId });
  }

  private hearTurn(topic: "progress" | "ask", payload: string): void {
    const notice = turnNotice.safeParse(safeJson(payload));
    if (notice.success && notice.data.origin !== this.origin) this.emit(topic, notice.data.turnId);
  }

  /** A threads NOTIFY (sent by the database's triggers). */
  hearThreads(payload: string): void {
    const notice = threadsNotice.safeParse(safeJson(payload));
    if (notice.success) this.emit("threads", notice.data.owner, notice.data.threadId);
  }

  /** How many streams wait now (for tests and leak checks). */
  get size(): number {
    return this.listeners();
  }

  /** How many wait for news of `topic` (all topics when unset). */
  listeners(topic?: LiveTopic): number {
    let n = 0;
    for (const [name, set] of this.waiting) if (topic === undefined || name.startsWith(`${topic}:`)) n += set.size;
    return n;
  }
}

export type LiveTopic = "progress" | "threads" | "ask";
type Wake = (detail?: string) => void;

/** Announces a turn's new progress rows: `{ origin, turnId }`. */
export const PROGRESS_CHANNEL = "threadline_progress";
/** Asks the process running a turn to write its progress: `{ origin, turnId }`. */
export const ASK_CHANNEL = "threadline_ask";
/** Announced by triggers on turns and threads (migrations): `{ owner, threadId }`. */
export const THREADS_CHANNEL = "threadline_threads";

const turnNotice = z.object({ origin: z.string(), turnId: z.string() });
const threadsNotice = z.object({ owner: z.string(), threadId: z.string() });

function safeJson(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

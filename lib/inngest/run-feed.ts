import "server-only";
import type { UIMessageChunk } from "ai";
import { AppError, type ErrorCode } from "@threadline/history/errors";
import type { TurnChunkBatch, TurnRefusal } from "@/lib/protocol/turn-events";
import { AttemptFilter, isTerminal } from "@/lib/live/attempt-filter";

// What a server reads of one chat-turn run on Inngest realtime (./runtime.ts
// subscribes before it sends the run's event): the run's messages in order,
// each attempt's chunks once, within the start and idle timeouts.

/** A realtime message of a turn's channel. */
export type Message = { topic: "chunks"; data: TurnChunkBatch } | { topic: "refused"; data: TurnRefusal };

/** While the run has not started: the notice sent again every `everyMs`, as long as another turn of the thread runs. */
export interface Waiting {
  notice: UIMessageChunk;
  waitsBehind: () => Promise<boolean>;
  everyMs: number;
}

/** How many transient chunks may come before a run's announcement of its thread. */
const MAX_OVERTAKING = 8;

/** One run's realtime messages, read in order, with timeouts and the attempt filter. */
export class RunFeed {
  private readonly filter = new AttemptFilter();
  private closed = false;
  /** What came with the first chunk, in the same message: the stream begins with it. */
  private rest: UIMessageChunk[] = [];

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Message>,
    private readonly unsubscribe: () => void,
  ) {}

  /** The read in flight: one that outlasted a wait is taken up by the next. */
  private reading?: Promise<ReadableStreamReadResult<Message>>;

  private read(): Promise<ReadableStreamReadResult<Message>> {
    return (this.reading ??= this.reader.read().finally(() => (this.reading = undefined)));
  }

  /** The next UI chunks (possibly none), null at the end, "silent" when `quiet` and nothing came in time; a refusal, or silence unless `quiet`, throws. */
  private async next(timeoutMs: number, { quiet = false } = {}): Promise<UIMessageChunk[] | null | "silent"> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
    try {
      const next = await Promise.race([this.read(), timeout]);
      if (next === "timeout" && quiet) return "silent";
      if (next === "timeout") throw new AppError("unavailable:turn_timeout", "The reply stopped arriving. Please try again.");
      if (next.done) return null;
      if (next.value.topic === "refused") throw new AppError(next.value.data.code as ErrorCode, next.value.data.message);
      return next.value.data.messages.flatMap((message) => this.filter.accept(message));
    } finally {
      clearTimeout(timer);
    }
  }

  /** The run's first chunk; with `quiet`, undefined when none came within `timeoutMs`. */
  async first(timeoutMs: number, options?: { quiet?: false }): Promise<UIMessageChunk>;
  async first(timeoutMs: number, options: { quiet: true }): Promise<UIMessageChunk | undefined>;
  async first(timeoutMs: number, { quiet = false } = {}): Promise<UIMessageChunk | undefined> {
    for (;;) {
      const chunks = await this.next(timeoutMs, { quiet });
      if (chunks === "silent") return undefined;
      if (chunks === null) throw new AppError("internal:inngest", "The realtime stream ended before the turn started.");
      if (chunks.length > 0) {
        this.rest = chunks.slice(1);
        return chunks[0];
      }
    }
  }

  /**
   * The thread's announcement, from `first` on: a transient chunk the run
   * published after it (what the model is given, for the debug panel) can
   * reach this server first, one realtime publish overtaking another. It is
   * kept and follows the announcement; anything else before it is returned as
   * it came, for the caller to refuse.
   */
  async announcement(first: UIMessageChunk, timeoutMs: number): Promise<UIMessageChunk> {
    const overtaking: UIMessageChunk[] = [];
    let chunk = first;
    while (chunk.type !== "data-thread" && "transient" in chunk && chunk.transient && overtaking.length < MAX_OVERTAKING) {
      overtaking.push(chunk);
      // What came in the same message first, then the next message.
      chunk = this.rest.shift() ?? (await this.first(timeoutMs));
    }
    if (chunk.type !== "data-thread") return overtaking[0] ?? chunk;
    this.rest = [...overtaking, ...this.rest];
    return chunk;
  }

  /**
   * The run's chunks from `first` on. While `waiting` (the run waits for
   * another turn of its thread), silence is no failure: its notice goes out
   * again every so often as long as that turn runs.
   */
  stream(first: UIMessageChunk, idleTimeoutMs: number, waiting?: Waiting): ReadableStream<UIMessageChunk> {
    let queued = waiting;
    return new ReadableStream<UIMessageChunk>({
      start: (controller) => {
        const opening = [first, ...this.rest.splice(0)];
        for (const chunk of opening) controller.enqueue(chunk);
        // A turn may come whole in its first message (a replay of a stored reply).
        if (opening.some(isTerminal)) {
          this.close();
          controller.close();
        }
      },
      pull: async (controller) => {
        try {
          // A pull that enqueues nothing is not called again: read until there is something to pass on.
          let chunks: UIMessageChunk[] | null;
          for (;;) {
            const got = await this.next(queued ? Math.min(queued.everyMs, idleTimeoutMs) : idleTimeoutMs, { quiet: queued !== undefined });
            if (got === "silent") {
              if (await queued!.waitsBehind()) {
                chunks = [queued!.notice];
                break;
              }
              // The turn ahead has ended: from now on this run has the usual time to start.
              queued = undefined;
              continue;
            }
            chunks = got;
            if (chunks === null || chunks.length > 0) break;
          }
          if (chunks !== null && chunks[0] !== queued?.notice) queued = undefined;
          for (const chunk of chunks ?? []) controller.enqueue(chunk);
          if (chunks === null || chunks.some(isTerminal)) {
            this.close();
            controller.close();
          }
        } catch (error) {
          const message = error instanceof AppError ? error.message : "The reply could not be received.";
          controller.enqueue({ type: "error", errorText: message });
          this.close();
          controller.close();
        }
      },
      // The tab closed: the run goes on in Inngest, but this server stops listening.
      cancel: () => this.close(),
    });
  }

  /** Closes the upstream websocket too: cancelling the stream alone leaves it open. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    void this.reader.cancel().catch(() => {});
  }
}

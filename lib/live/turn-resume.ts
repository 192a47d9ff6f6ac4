import "server-only";
import type { UIMessageChunk } from "ai";
import { AppError } from "@threadline/history/errors";
import type { LiveStore, StoredProgress } from "./store";
import { AttemptFilter, isTerminal } from "./attempt-filter";
import type { LiveBus } from "./bus";

/** How often a resumed stream reads on its own, in case a wake-up was missed (a NOTIFY lost with its connection). */
export const RESUME_POLL_MS = 1_000;

/**
 * How often a process that follows a turn asks its runner, again, to keep
 * writing (the runner stops WATCH_MS after the last ask: lib/live/progress-writer.ts).
 */
export const ASK_EVERY_MS = 1_500;

/** What a resumed stream ends with when its turn stopped running without writing its end. */
export const INTERRUPTED = "The reply was interrupted: its server went away. Send the message again to get a reply.";

/** A place in a turn's stream: after the message `index` of row `row`. */
export interface StreamPosition {
  row: bigint;
  index: number;
}

/** One event of a resumed stream: the chunk, and its place (the SSE id; none for an event of this server's own, such as a failure). */
export interface PlacedChunk {
  id?: string;
  chunk: UIMessageChunk;
}

/** A position as an SSE id or `?after=` gives it (`<rowId>.<index>`); a 400 for anything else. */
export function parsePosition(value: string): StreamPosition {
  const match = /^(\d{1,18})\.(\d{1,9})$/.exec(value);
  if (!match) throw new AppError("bad_request:stream_position", "The stream position must look like 12.3 (an event id of this stream).");
  return { row: BigInt(match[1]), index: Number(match[2]) };
}

const isAfter = (row: bigint, index: number, after: StreamPosition | undefined) =>
  after === undefined || row > after.row || (row === after.row && index > after.index);

/**
 * How far a resumed stream's client may fall behind: what the turn wrote
 * since the client last asked for more. A client that does not read (its
 * connection stalled, or it never reads) is cut off past it, instead of
 * holding its connection and its place for the rest of the reply.
 */
export const MAX_RESUME_BACKLOG_BYTES = 1024 * 1024;

/**
 * A thread's running reply, for a client that joins late (a reload, another
 * tab or device, a request another server answers): the process following it
 * asks the turn's runner, wherever it runs, to write its progress
 * (turn_progress), and streams what it wrote so far, then the rest as it is
 * written, as one clean stream.
 * Every stream of this process that follows one turn reads it through one
 * TurnFeed: one progress read per wake-up, however many streams.
 */
export class TurnResume {
  private readonly feeds = new Map<string, TurnFeed>();

  constructor(
    private readonly store: () => LiveStore,
    private readonly bus: () => LiveBus,
    /** Asks the turn's runner, in this process or another, to write its progress. */
    private readonly ask: (turnId: string) => void,
    private readonly pollMs = RESUME_POLL_MS,
    private readonly maxBacklogBytes = MAX_RESUME_BACKLOG_BYTES,
  ) {}

  /**
   * The stream of the turn running in the owner's thread, from the start or
   * after `after`; null when no turn runs there; a 404 AppError for a thread
   * that is not the owner's. `signal` ends it (the client went away);
   * `onEnd` is called once when it ends, however it ends.
   */
  async open(
    owner: string,
    threadId: string,
    options: { after?: StreamPosition; signal?: AbortSignal; onEnd?: () => void } = {},
  ): Promise<ReadableStream<PlacedChunk> | null> {
    const store = this.store();
    const turnId = await store.runningTurnOf(owner, threadId);
    if (turnId === null) return null;
    let feed = this.feeds.get(turnId);
    if (!feed) {
      const created = new TurnFeed(store, this.bus(), this.ask, threadId, turnId, this.pollMs, this.maxBacklogBytes, () => {
        if (this.feeds.get(turnId) === created) this.feeds.delete(turnId);
      });
      this.feeds.set(turnId, (feed = created));
    }
    return feed.follow(options);
  }

  /** How many turns this process follows now (for tests and leak checks). */
  get following(): number {
    return this.feeds.size;
  }
}

interface Follower {
  controller?: ReadableStreamDefaultController<PlacedChunk>;
  /** The rows it has placed. */
  cursor: number;
  /** The feed's size when it last asked for more and got all there was. */
  caughtUpAt: number;
  /** Set while it waits for news: the feed calls it. */
  wake?: () => void;
  leave: () => void;
}

/**
 * One turn's progress, read once per wake-up (news from the bus, or the poll)
 * for all of this process's streams that follow it, and kept while any does:
 * a stream that joins late takes what was read so far from here, then
 * follows. Reads stop when the last stream leaves or the turn ends.
 */
class TurnFeed {
  private readonly rows: StoredProgress[] = [];
  /** The characters of every row read so far. */
  private size = 0;
  private ended: "final" | "interrupted" | "failed" | "settled" | undefined;
  private readonly followers = new Set<Follower>();
  private readThrough = "0";
  private news = true;
  private running = false;
  private wake: (() => void) | undefined;
  /** Consecutive polls that found the turn no longer running and nothing new. */
  private quietPolls = 0;

  constructor(
    private readonly store: LiveStore,
    private readonly bus: LiveBus,
    private readonly ask: (turnId: string) => void,
    private readonly threadId: string,
    private readonly turnId: string,
    private readonly pollMs: number,
    private readonly maxBacklogBytes: number,
    private readonly onDone: () => void,
  ) {}

  follow({ after, signal, onEnd }: { after?: StreamPosition; signal?: AbortSignal; onEnd?: () => void }): ReadableStream<PlacedChunk> {
    // Every row is read through the filter, also those before `after`: a
    // retried step's older attempts are known, and dropped, wherever it resumes.
    const filter = new AttemptFilter();
    let left = false;
    const follower: Follower = {
      cursor: 0,
      caughtUpAt: this.size,
      leave: () => {
        if (left) return;
        left = true;
        this.followers.delete(follower);
        signal?.removeEventListener("abort", follower.leave);
        follower.wake?.();
        if (this.followers.size === 0) this.wake?.(); // the reads stop
        onEnd?.();
      },
    };
    this.followers.add(follower);
    signal?.addEventListener("abort", follower.leave);
    if (signal?.aborted) follower.leave();
    if (!this.running) {
      this.running = true;
      void this.run();
    }

    /** The rows it has not placed yet, as events; done once the reply's end is among them. */
    const place = (): { events: PlacedChunk[]; done: boolean } => {
      const events: PlacedChunk[] = [];
      while (follower.cursor < this.rows.length) {
        const row = this.rows[follower.cursor++];
        const rowId = BigInt(row.id);
        for (const [index, message] of row.chunks.entries()) {
          for (const chunk of filter.accept(message)) {
            if (isAfter(rowId, index, after)) events.push({ id: `${row.id}.${index}`, chunk });
            if (isTerminal(chunk)) return { events, done: true };
          }
        }
        if (row.final) return { events, done: true };
      }
      return { events, done: false };
    };

    return new ReadableStream<PlacedChunk>({
      start: (controller) => {
        follower.controller = controller;
      },
      pull: async (controller) => {
        while (!left) {
          follower.caughtUpAt = this.size;
          const { events, done } = place();
          for (const event of events) controller.enqueue(event);
          if (done) break;
          if (events.length > 0) return;
          if (this.ended === "interrupted") {
            // Its runner went away mid-reply (its process died, or its lease ran out): the client must not take what it got for the whole reply.
            controller.enqueue({ chunk: { type: "error", errorText: INTERRUPTED } });
            break;
          }
          if (this.ended === "settled" && this.rows.length === 0) break; // its reply is stored: the client reads it there
          if (this.ended === "failed" || this.ended === "settled") {
            controller.enqueue({ chunk: { type: "error", errorText: "The reply could not be followed. Reload to see it." } });
            break;
          }
          if (this.ended === "final") break;
          await new Promise<void>((resolve) => (follower.wake = resolve));
          follower.wake = undefined;
        }
        follower.leave();
        try {
          controller.close();
        } catch {
          // Cancelled by the reader already.
        }
      },
      cancel: follower.leave,
    });
  }

  /** Reads while any stream follows and the turn has not ended: once per wake-up, for all of them. */
  private async run(): Promise<void> {
    const unsubscribe = this.bus.on("progress", this.turnId, () => {
      this.news = true;
      this.wake?.();
    });
    this.ask(this.turnId);
    const asking = setInterval(() => this.ask(this.turnId), ASK_EVERY_MS);
    asking.unref();
    try {
      while (this.followers.size > 0 && !this.ended) {
        const polled = await this.idle();
        if (this.followers.size === 0) break;
        this.news = false;
        const rows = await this.store.readProgress(this.turnId, this.readThrough);
        for (const row of rows) {
          this.rows.push(row);
          this.size += row.size;
          this.readThrough = row.id;
          if (row.final) this.ended = "final";
        }
        if (rows.length > 0) this.quietPolls = 0;
        else if (polled) {
          // The turn stores its reply (and stops running) just before its last row is written: one more poll waits for that row.
          const state = await this.store.turnState(this.threadId, this.turnId);
          this.quietPolls = state === "running" ? 0 : this.quietPolls + 1;
          // Ended by its runner with no end written: it ended before the ask reached it, or its write failed.
          if (this.quietPolls >= 2) this.ended = state === "ended" ? "settled" : "interrupted";
        }
        this.tell();
      }
    } catch (error) {
      console.error(`[turn ${this.turnId}] resumed stream failed:`, (error as Error).message);
      this.ended = "failed";
      this.tell();
    } finally {
      clearInterval(asking);
      unsubscribe();
      this.onDone();
    }
  }

  /** Wakes the streams waiting for news; cuts off those whose client stopped reading long enough ago. */
  private tell(): void {
    for (const follower of [...this.followers]) {
      if (follower.wake) follower.wake();
      else if (this.size - follower.caughtUpAt > this.maxBacklogBytes) {
        follower.leave();
        follower.controller?.error(new Error("The client stopped reading its stream."));
      }
    }
  }

  /** Waits for news or the poll; true when the poll woke it. */
  private async idle(): Promise<boolean> {
    if (this.news) return false;
    let timer: NodeJS.Timeout | undefined;
    const polled = await new Promise<boolean>((resolve) => {
      this.wake = () => resolve(false);
      timer = setTimeout(() => resolve(true), this.pollMs);
    });
    this.wake = undefined;
    clearTimeout(timer);
    return polled;
  }
}

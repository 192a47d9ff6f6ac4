import "server-only";
import type pg from "pg";
import type { UIMessageChunk } from "ai";
import { AppError } from "@/lib/errors";
import { readProgress, runningTurnOf, turnStillRunning, type StoredProgress } from "@/lib/history/postgres-progress";
import { AttemptFilter, isTerminal } from "./attempt-filter";
import type { LiveBus } from "./live-bus";

/** How often a resumed stream reads on its own, in case a wake-up was missed (a NOTIFY lost with its connection). */
export const RESUME_POLL_MS = 1_000;

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
 * A thread's running reply, for a client that joins late (a reload, another
 * tab or device, a request another server answers): what the turn wrote so
 * far (turn_progress), then the rest as it is written, as one clean stream.
 */
export class TurnResume {
  constructor(
    private readonly pool: () => pg.Pool,
    private readonly bus: () => LiveBus,
    private readonly pollMs = RESUME_POLL_MS,
  ) {}

  /**
   * The stream of the turn running in the owner's thread, from the start or
   * after `after`; null when no turn runs there; a 404 AppError for a thread
   * that is not the owner's. `signal` ends it (the client went away).
   */
  async open(owner: string, threadId: string, options: { after?: StreamPosition; signal?: AbortSignal } = {}): Promise<ReadableStream<PlacedChunk> | null> {
    const pool = this.pool();
    const turnId = await runningTurnOf(pool, owner, threadId);
    if (turnId === null) return null;
    return this.follow(pool, threadId, turnId, options);
  }

  private follow(pool: pg.Pool, threadId: string, turnId: string, { after, signal }: { after?: StreamPosition; signal?: AbortSignal }) {
    // Every row is read through the filter, also those before `after`: a
    // retried step's older attempts are known, and dropped, wherever it resumes.
    const filter = new AttemptFilter();
    let readThrough = "0";
    let news = true;
    let ended = false;
    let wake: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    /** Consecutive polls that found the turn no longer running and nothing new. */
    let quietPolls = 0;

    const rouse = () => {
      news = true;
      wake?.();
    };
    const unsubscribe = this.bus().on("progress", turnId, rouse);
    const finish = () => {
      if (ended) return;
      ended = true;
      unsubscribe();
      clearTimeout(timer);
      signal?.removeEventListener("abort", finish);
      wake?.();
    };
    signal?.addEventListener("abort", finish);

    /** Waits for news or the poll; true when the poll woke it. */
    const idle = async (): Promise<boolean> => {
      if (news) return false;
      const polled = await new Promise<boolean>((resolve) => {
        wake = () => resolve(false);
        timer = setTimeout(() => resolve(true), this.pollMs);
      });
      wake = undefined;
      clearTimeout(timer);
      return polled;
    };

    const place = (rows: StoredProgress[]): { events: PlacedChunk[]; done: boolean } => {
      const events: PlacedChunk[] = [];
      for (const row of rows) {
        readThrough = row.id;
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
      pull: async (controller) => {
        try {
          while (!ended) {
            const polled = await idle();
            if (ended) break;
            news = false;
            const rows = await readProgress(pool, turnId, readThrough);
            const { events, done } = place(rows);
            for (const event of events) controller.enqueue(event);
            if (done) break;
            if (rows.length > 0) quietPolls = 0;
            else if (polled) {
              // The turn stores its reply (and stops running) just before its last row is written: one more poll waits for that row.
              quietPolls = (await turnStillRunning(pool, threadId, turnId)) ? 0 : quietPolls + 1;
              if (quietPolls >= 2) {
                // Its runner went away mid-reply (its process died, or its lease ran out): the client must not take what it got for the whole reply.
                controller.enqueue({ chunk: { type: "error", errorText: INTERRUPTED } });
                break;
              }
            }
            if (events.length > 0) return;
          }
        } catch (error) {
          console.error(`[turn ${turnId}] resumed stream failed:`, (error as Error).message);
          if (!ended) controller.enqueue({ chunk: { type: "error", errorText: "The reply could not be followed. Reload to see it." } });
        }
        finish();
        try {
          controller.close();
        } catch {
          // Cancelled by the reader already.
        }
      },
      cancel: finish,
    });
  }
}

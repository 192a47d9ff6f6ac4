import "server-only";
import type { ProgressRow } from "./store";
import type { TurnChunkMessage } from "@/lib/protocol/turn-events";

/** Sweeping old rows rides on a flush at most this often per process. */
export const SWEEP_EVERY_MS = 60_000;

export interface TurnProgressDeps {
  /** Writes one row (and announces it to other processes in the same statement). */
  write: (row: ProgressRow) => Promise<void>;
  /** Tells this process's streams that the turn wrote more. */
  emit: (turnId: string) => void;
  /** How long a chunk waits for company before its row is written. */
  intervalMs: number;
  now?: () => number;
}

/**
 * One per process: hands each running turn its writer of turn_progress, and
 * decides which flush sweeps old rows (one a minute, whichever turn).
 */
export class TurnProgress {
  private lastSweep = -Infinity;

  constructor(private readonly deps: TurnProgressDeps) {}

  writer(turnId: string): ProgressWriter {
    return new ProgressWriter(turnId, this.deps, () => this.sweepDue());
  }

  private sweepDue(): boolean {
    const now = (this.deps.now ?? Date.now)();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return false;
    this.lastSweep = now;
    return true;
  }
}

/**
 * A turn's published messages, written to turn_progress a row at a time: the
 * first message after a write starts the interval, and what came meanwhile
 * goes in one row when it ends. Writes go one after another (never two at
 * once), so a turn's rows commit in id order, which readers rely on. Pushing
 * costs an array push and, at most once an interval, a timer: the turn never
 * waits for the database, and a failed write never reaches it: it is logged
 * once and this turn writes no more (a reader then ends with the turn).
 */
export class ProgressWriter {
  private buffer: TurnChunkMessage[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private broken = false;
  private ended = false;

  constructor(
    private readonly turnId: string,
    private readonly deps: TurnProgressDeps,
    private readonly sweepDue: () => boolean,
  ) {}

  push(message: TurnChunkMessage): void {
    if (this.broken || this.ended) return;
    this.buffer.push(message);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.deps.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes what is buffered now; resolves once it is written (or dropped). Never rejects. */
  flush(): Promise<void> {
    return this.queue(false);
  }

  /** The turn has ended: the rest, in a row marked final. Never rejects; later pushes are dropped. */
  end(): Promise<void> {
    if (this.ended) return this.writing;
    this.ended = true;
    return this.queue(true);
  }

  private queue(final: boolean): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.write(final));
    return this.writing;
  }

  private async write(final: boolean): Promise<void> {
    const messages = this.buffer;
    this.buffer = [];
    if (this.broken || (messages.length === 0 && !final)) return;
    try {
      await this.deps.write({ turnId: this.turnId, messages, final, sweep: this.sweepDue() });
      this.deps.emit(this.turnId);
    } catch (error) {
      this.broken = true;
      this.buffer = [];
      clearTimeout(this.timer);
      console.error(`[turn ${this.turnId}] could not write its progress; a reload will not resume it:`, (error as Error).message);
    }
  }
}

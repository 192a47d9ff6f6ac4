import "server-only";
import type { ProgressRow } from "./store";
import type { TurnChunkMessage } from "@/lib/protocol/turn-events";

/** Sweeping old rows rides on a flush at most this often per process. */
export const SWEEP_EVERY_MS = 60_000;

/**
 * How long one ask keeps a turn's progress written. A reader asks again every
 * ASK_EVERY_MS (lib/live/turn-resume.ts) while it stays, so a couple of lost
 * asks (a listener reconnecting) do not stop the writes under it.
 */
export const WATCH_MS = 5_000;

/**
 * How long a turn that ended unwatched still answers an ask, with its end
 * alone: a reader that found it running a moment before it ended is told at
 * once that there is no more to follow (the page then reads the stored
 * reply), rather than polling until it sees the turn has ended. Its asks come
 * within milliseconds, or within ASK_EVERY_MS of a listener back.
 */
export const LINGER_MS = 10_000;

/**
 * A writer that pushed nothing for this long, and is not watched, stops
 * listening for asks until it pushes again: a request that ended without
 * ending its turn (a durable step that failed, a step of a run without
 * checkpointing) leaves no listener behind.
 */
export const IDLE_MS = 60_000;

export interface TurnProgressDeps {
  /** Writes one row (and announces it to other processes in the same statement). */
  write: (row: ProgressRow) => Promise<void>;
  /** Tells this process's streams that the turn wrote more. */
  emit: (turnId: string) => void;
  /** Calls `ask` whenever a reader, here or on another server, asks for the turn's progress; returns how to stop. */
  onAsk: (turnId: string, ask: () => void) => () => void;
  /** How long a chunk waits for company before its row is written, while the turn is watched. */
  intervalMs: number;
  watchMs?: number;
  lingerMs?: number;
  now?: () => number;
}

/**
 * Where a writer's next step may run in another request (Inngest without
 * checkpointing, or a request going on with a run an earlier one began):
 * each step's end then writes what it holds, and the turn's end is written.
 */
export interface WriterOptions {
  stepsMove?: boolean;
}

/**
 * One per process: hands each running turn its writer of turn_progress, and
 * decides which flush sweeps old rows (one a minute, whichever turn).
 */
export class TurnProgress {
  private lastSweep = -Infinity;

  constructor(private readonly deps: TurnProgressDeps) {}

  writer(turnId: string, options: WriterOptions = {}): ProgressWriter {
    return new ProgressWriter(turnId, this.deps, () => this.sweepDue(), options);
  }

  private sweepDue(): boolean {
    const now = (this.deps.now ?? Date.now)();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return false;
    this.lastSweep = now;
    return true;
  }
}

/**
 * A turn's published messages, kept in memory and written to turn_progress
 * only while someone watches: a reader (a reload, another tab, another
 * server) asks, and the writer answers with one row of everything not
 * written yet, then a row per interval while asks keep coming. Once anything
 * is written, the turn's end is written too; a turn nobody asked about writes
 * nothing. The rows in the table are always a prefix of the turn's stream,
 * written one after another (never two at once), so they commit in id order,
 * which readers rely on. Pushing costs an array push and, while watched, at
 * most one timer an interval: the turn never waits for the database, and a
 * failed write never reaches it: it is logged once and this turn writes no
 * more (a reader then ends with the turn).
 */
export class ProgressWriter {
  private buffer: TurnChunkMessage[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private watchedUntil = -Infinity;
  /** A row has been written: the turn's end will be too. */
  private wrote = false;
  private broken = false;
  private ended = false;
  private finalQueued = false;
  private lingering: NodeJS.Timeout | undefined;
  /** Set while it listens for asks. */
  private stopAsking: (() => void) | undefined;
  private pushes = 0;
  private pushesAtLastLook = 0;
  private idleLook: NodeJS.Timeout | undefined;

  constructor(
    private readonly turnId: string,
    private readonly deps: TurnProgressDeps,
    private readonly sweepDue: () => boolean,
    private readonly options: WriterOptions,
  ) {
    this.listen();
  }

  push(message: TurnChunkMessage): void {
    if (this.broken || this.ended) return;
    this.buffer.push(message);
    this.pushes++;
    if (this.stopAsking === undefined) this.listen();
    if (this.timer === undefined && this.watched()) {
      this.timer = setTimeout(() => void this.queue(false), this.deps.intervalMs);
      this.timer.unref();
    }
  }

  /** A reader asks: what is not written yet goes at once (on a first ask), then once an interval while asks keep coming. */
  ask(): void {
    if (this.broken) return;
    const was = this.watched();
    this.watchedUntil = this.now() + (this.deps.watchMs ?? WATCH_MS);
    if (this.ended) {
      if (this.lingering !== undefined && !this.finalQueued) void this.queue(true);
    } else if (!was) void this.queue(false);
  }

  /**
   * A durable step ends: what it published is written if someone watches, or
   * if the next step may run in another process. Resolves once written (or
   * dropped). Never rejects.
   */
  flush(): Promise<void> {
    if (this.watched() || this.options.stepsMove) return this.queue(false);
    return this.writing;
  }

  /** A durable step failed: its retry comes in a new request, maybe elsewhere, so what this one holds is written, watched or not. */
  handOver(): Promise<void> {
    return this.queue(false);
  }

  /**
   * The turn has ended: once anything was written, the rest in a row marked
   * final; otherwise nothing (its chunks are let go: the reply is stored),
   * unless an ask comes within LINGER_MS, which gets an empty final row.
   * Never rejects; later pushes are dropped.
   */
  end(): Promise<void> {
    if (this.ended) return this.writing;
    this.ended = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    // Decided after the writes queued so far, which may be the first.
    this.writing = this.writing.then(() => {
      if (this.wrote || this.watched() || this.options.stepsMove) {
        this.finalQueued = true;
        return this.write(true);
      }
      this.buffer = [];
      this.lingering = setTimeout(() => this.stop(), this.deps.lingerMs ?? LINGER_MS);
      this.lingering.unref();
    });
    return this.writing;
  }

  /** Listens for asks, and looks every IDLE_MS whether it still should. */
  private listen(): void {
    this.stopAsking = this.deps.onAsk(this.turnId, () => this.ask());
    this.pushesAtLastLook = this.pushes;
    this.idleLook = setInterval(() => this.lookIdle(), IDLE_MS);
    this.idleLook.unref();
  }

  /** Neither the listener nor the timer is left to hold the writer. */
  private unlisten(): void {
    clearInterval(this.idleLook);
    this.idleLook = undefined;
    this.stopAsking?.();
    this.stopAsking = undefined;
  }

  private lookIdle(): void {
    if (this.pushes === this.pushesAtLastLook && !this.watched()) this.unlisten();
    this.pushesAtLastLook = this.pushes;
  }

  private stop(): void {
    clearTimeout(this.lingering);
    this.unlisten();
    this.buffer = [];
  }

  private watched(): boolean {
    return this.now() < this.watchedUntil;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private queue(final: boolean): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (final) this.finalQueued = true;
    this.writing = this.writing.then(() => this.write(final));
    return this.writing;
  }

  private async write(final: boolean): Promise<void> {
    const messages = this.buffer;
    this.buffer = [];
    if (!this.broken && (messages.length > 0 || final)) {
      this.wrote = true;
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
    if (final) this.stop();
  }
}

import type { TurnChunkMessage } from "@/lib/protocol/turn-events";

// What live and resume need of the database, as a port: the Postgres adapter
// implements it (lib/live/postgres-progress.ts), and nothing here knows SQL.

/** One flush of a turn's chunks: one row. */
export interface ProgressRow {
  turnId: string;
  messages: TurnChunkMessage[];
  /** The turn's last row. */
  final: boolean;
  /** Sweep old rows in the same statement (a process does it at most once a minute). */
  sweep: boolean;
}

/** A stored row, as a reader gets it: `id` is a bigint, kept as its text. */
export interface StoredProgress {
  id: string;
  chunks: TurnChunkMessage[];
  final: boolean;
  /** The row's characters as stored: what a reader that has not read it yet is behind by. */
  size: number;
}

export interface LiveStore {
  /** Writes one row and, with it, announces it on `notice.channel` to every process (delivered once it is stored). */
  writeProgress(row: ProgressRow, notice: { channel: string; payload: string }): Promise<void>;
  /** A turn's rows after `afterId` (a row id; "0" for all), in order. */
  readProgress(turnId: string, afterId: string): Promise<StoredProgress[]>;
  /** The turn running in the owner's thread now, or null; a 404 AppError when the thread is not the owner's. */
  runningTurnOf(owner: string, threadId: string): Promise<string | null>;
  /** The owner's threads with a turn running now (a disabled person's, to stop). */
  runningThreadsOf(owner: string): Promise<string[]>;
  /**
   * Where that turn of the thread stands: still running, ended by its runner
   * (its reply, or its end, is stored), or neither (its runner went away).
   */
  turnState(threadId: string, turnId: string): Promise<TurnState>;
  /** Sends `payload` on `channel` to every process. */
  announce(notice: { channel: string; payload: string }): Promise<void>;
}

export type TurnState = "running" | "ended" | "gone";

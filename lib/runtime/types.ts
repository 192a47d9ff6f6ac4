import type { UIMessageChunk } from "ai";
import type { HistorySource } from "@/lib/agent/turn/lifecycle";
import type { TurnInput } from "@/lib/agent/turn/turn";

export interface StartedTurn {
  threadId: string;
  /** Unknown while the turn waits for another turn of its thread; its stream's data-thread says it once it starts. */
  historySource?: HistorySource;
  stream: ReadableStream<UIMessageChunk>;
}

/** Runs turns somewhere (in this process, or on Inngest) and streams them back. */
export interface TurnRuntime {
  readonly name: "inline" | "inngest";
  /**
   * Resolves once the thread exists and the user's message is stored; rejects with an AppError before that.
   * `signal`: the request's; a resend waiting for the turn that answers its message stops waiting when it aborts.
   */
  start(input: Omit<TurnInput, "turnId">, options?: { signal?: AbortSignal }): Promise<StartedTurn>;
  /**
   * Goes on with the thread's reply `replyId` once the user has decided on
   * every call it waits on: resolves once it has started (true), or found
   * nothing to go on with (false: the reply no longer waits, a call is still
   * undecided, or another turn runs and the reply goes on after it).
   */
  goOn(request: { owner: string; threadId: string; replyId: string }): Promise<boolean>;
  /** Ends the thread's running generation, keeping what it wrote. False when nothing was running. */
  stop(owner: string, threadId: string): Promise<boolean>;
}

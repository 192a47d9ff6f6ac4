import "server-only";
import type { UIMessageChunk } from "ai";
import type { Reply } from "@threadline/history/contract";
import { DEFAULT_SAVE_RETRY_MS, saveFailure, saveReply } from "./save-retry";
import type { StepRunner } from "./steps";
import { signaturesChunk, stoppedChunk } from "./stream-chunks";
import type { TurnDeps } from "./turn-types";

// How every turn ends, the first one of a message and each that goes on
// after the user's decisions alike: its reply stored (only this run's parts,
// in one statement, retried while the database is away), then the stream's
// end (the stored reply signed, then the error beside what was written, or
// the finish). Both kinds of turn end here through their one pipeline
// (./turn-pipeline.ts).

/** How a turn ended: the reply it wrote (none when it wrote nothing) and stored (with its place), or why it failed. */
export type Ending =
  | { status: "complete" | "stopped" | "waiting"; reply?: Reply; replySeq?: number; replyParentId?: string | null }
  | { status: "incomplete"; reply?: Reply; replySeq?: number; replyParentId?: string | null; failure: Error }
  | { status: "failed"; failure: Error };

export interface StoreEnding {
  owner: string;
  threadId: string;
  /** The user's message the reply answers, and the turn answering it. */
  turn: { messageId: string; turnId: string };
  /** A regenerate's reply is a new version of this one. */
  replaces?: string;
  /** What the user may do once a reply could not be stored: send the message again (a first turn), or nothing more (it went on from a stored one). */
  sendAgain: boolean;
}

/** Stores the reply of `ran`, if it wrote one: the ending with the reply's place, or a failure that says what to do. */
export async function storeEnding(
  ran: Ending,
  where: StoreEnding,
  deps: Pick<TurnDeps, "history" | "saveRetryMs"> & { step: StepRunner },
): Promise<Ending> {
  if (ran.status === "failed" || ran.reply === undefined) return ran;
  const { reply } = ran;
  const { owner, threadId, turn, replaces } = where;
  try {
    const saved = await deps.step("append-results", () =>
      saveReply(() => deps.history.appendResults({ owner, threadId, reply, turn, replaces }), {
        retryMs: deps.saveRetryMs ?? DEFAULT_SAVE_RETRY_MS,
        turnId: turn.turnId,
      }),
    );
    if ("refused" in saved) return { status: "failed", failure: new Error(`The reply could not be saved: ${saved.refused}. Copy it if you need it.`) };
    return { ...ran, replySeq: saved.seq, replyParentId: saved.parentId };
  } catch (error) {
    const then = where.sendAgain ? ", then send your message again" : "";
    return { status: "failed", failure: new Error(`The reply could not be saved: ${saveFailure(error)}. Copy it if you need it${then}.`, { cause: error }) };
  }
}

/** The stream's last chunks: `ahead` (a summary stored after the reply), the stored reply signed, then the error beside what was written, or the finish. */
export function endChunks(ending: Ending, threadId: string, signer: TurnDeps["signer"], ahead: UIMessageChunk[] = []): UIMessageChunk[] {
  const chunks = [...ahead];
  if (signer && ending.status !== "failed" && ending.reply && ending.replySeq !== undefined) {
    const place = { seq: ending.replySeq, parentId: ending.replyParentId };
    chunks.push(signaturesChunk([{ id: ending.reply.id, signature: signer(threadId, { ...ending.reply, ...place }), ...place }]));
  }
  // What was written stays in view (kept, when the reply is incomplete).
  if (ending.status === "failed" || ending.status === "incomplete") return [...chunks, { type: "error", errorText: ending.failure.message }];
  // A reply that waits for an approval ends as the AI SDK's own does: on its tool calls.
  const finishReason = ending.status === "stopped" ? "other" : ending.status === "waiting" ? "tool-calls" : "stop";
  return [...chunks, ...(ending.status === "stopped" ? [stoppedChunk] : []), { type: "finish", finishReason }];
}

import type { UIMessageChunk } from "ai";
import type { TurnChunkMessage } from "@/lib/protocol/turn-events";
import { dataChunk } from "@/lib/protocol/chat";

/**
 * Turns the function's realtime messages back into one clean UI message
 * stream. A retried model step publishes its text again under a higher
 * attempt number: the client is told (data-retry) which text parts of the
 * reply belong to the failed try (the `dropTextParts` after the first
 * `keepTextParts`), so that partial text is dropped instead of shown twice;
 * stragglers from an older attempt are ignored.
 */
export class AttemptFilter {
  /** Inside a model step (between start-step and finish-step), and the attempt that is streaming it. */
  private stepOpen = false;
  private stepAttempt = 0;
  private openTextParts = 0;
  private finishedTextParts = 0;

  // Inngest numbers attempts per step: the next step starts again at 0.
  accept({ attempt, chunk }: TurnChunkMessage): UIMessageChunk[] {
    if (!isModelStepChunk(chunk)) {
      // Published by a later step of the turn (its end, an error): the model step is over.
      this.stepOpen = false;
      return [chunk];
    }
    if (this.stepOpen && attempt < this.stepAttempt) return []; // a straggler of the failed try
    const out: UIMessageChunk[] = [];
    if (this.stepOpen && attempt > this.stepAttempt) {
      this.stepAttempt = attempt;
      if (this.openTextParts > 0) {
        out.push(dataChunk("retry", { keepTextParts: this.finishedTextParts, dropTextParts: this.openTextParts }));
        this.openTextParts = 0;
      }
      if (chunk.type === "start-step") return out; // the client already saw this step start
    }
    if (chunk.type === "start-step") {
      this.stepOpen = true;
      this.stepAttempt = attempt;
    } else if (chunk.type === "text-start") {
      this.openTextParts++;
    } else if (chunk.type === "finish-step") {
      this.stepOpen = false;
      this.finishedTextParts += this.openTextParts;
      this.openTextParts = 0;
    }
    out.push(chunk);
    return out;
  }
}

/** Chunks that a model step publishes while it runs; every other chunk has a step of its own. */
function isModelStepChunk(chunk: UIMessageChunk): boolean {
  return chunk.type === "start-step" || chunk.type === "finish-step" || chunk.type.startsWith("text-");
}

export function isTerminal(chunk: UIMessageChunk): boolean {
  return chunk.type === "finish" || chunk.type === "error" || chunk.type === "abort";
}

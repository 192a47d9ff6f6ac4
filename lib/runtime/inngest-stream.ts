import type { UIMessageChunk } from "ai";
import type { TurnChunkMessage } from "@/inngest/channels";

/**
 * Turns the function's realtime messages back into one clean UI message
 * stream. A retried model step publishes its text again under a higher
 * attempt number: the client is told (data-retry) which text parts of the
 * reply belong to the failed try (the `dropTextParts` after the first
 * `keepTextParts`), so that partial text is dropped instead of shown twice;
 * stragglers from an older attempt are ignored.
 */
export class AttemptFilter {
  private attempt = 0;
  private finishedTextParts = 0;
  private openTextParts = 0;

  accept({ attempt, chunk }: TurnChunkMessage): UIMessageChunk[] {
    if (attempt < this.attempt) return [];
    const out: UIMessageChunk[] = [];
    if (attempt > this.attempt) {
      this.attempt = attempt;
      if (this.openTextParts > 0) {
        out.push({
          type: "data-retry",
          data: { keepTextParts: this.finishedTextParts, dropTextParts: this.openTextParts },
          transient: true,
        });
        this.openTextParts = 0;
      }
    }
    if (chunk.type === "text-start") this.openTextParts++;
    if (chunk.type === "finish-step") {
      this.finishedTextParts += this.openTextParts;
      this.openTextParts = 0;
    }
    out.push(chunk);
    return out;
  }
}

export function isTerminal(chunk: UIMessageChunk): boolean {
  return chunk.type === "finish" || chunk.type === "error" || chunk.type === "abort";
}

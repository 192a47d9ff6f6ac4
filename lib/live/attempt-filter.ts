import type { UIMessageChunk } from "ai";
import type { TurnChunkMessage } from "@/lib/protocol/turn-events";
import { dataChunk } from "@/lib/protocol/chat";
import { UI_METADATA_KEY } from "@/lib/protocol/parts-codec";

/**
 * Turns the function's realtime messages back into one clean UI message
 * stream. A step that fails and is retried streams again under a higher
 * attempt number. Every part a step opens is stamped with its step and
 * attempt; when a newer attempt of a step shows up, the client is told
 * (data-retry) to withdraw that step's parts from older attempts, whatever
 * their kind (text, reasoning, tool input). Stragglers of an older attempt
 * are dropped. Inngest numbers attempts per step, so each step is tracked on
 * its own.
 */
export class AttemptFilter {
  private readonly attempts = new Map<string, number>();

  accept({ attempt, step, chunk }: TurnChunkMessage): UIMessageChunk[] {
    if (step === undefined) return [chunk];
    const seen = this.attempts.get(step);
    if (seen !== undefined && attempt < seen) return [];
    this.attempts.set(step, attempt);
    const stamped = stamp(chunk, { step, attempt });
    return seen !== undefined && attempt > seen ? [dataChunk("retry", { step, attempt }), stamped] : [stamped];
  }
}

/** Chunks that open a part carry provider metadata into it: ours says which step and attempt wrote it. */
function stamp(chunk: UIMessageChunk, origin: { step: string; attempt: number }): UIMessageChunk {
  switch (chunk.type) {
    case "text-start":
    case "reasoning-start":
    case "tool-input-start":
    case "tool-input-available":
    case "reasoning-end": // it replaces the part's metadata: keep the stamp in it
      return { ...chunk, providerMetadata: { ...chunk.providerMetadata, [UI_METADATA_KEY]: { ...chunk.providerMetadata?.[UI_METADATA_KEY], ...origin } } };
    default:
      return chunk;
  }
}

export function isTerminal(chunk: UIMessageChunk): boolean {
  return chunk.type === "finish" || chunk.type === "error" || chunk.type === "abort";
}

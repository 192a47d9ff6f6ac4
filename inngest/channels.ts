import type { UIMessageChunk } from "ai";
import { realtime, staticSchema } from "inngest";

/** A chunk of the turn's UI message stream, tagged with the run attempt that produced it. */
export interface TurnChunkMessage {
  attempt: number;
  chunk: UIMessageChunk;
}

/** Why a turn ended before it streamed anything (404, 409, …): the route answers with it. */
export interface TurnRefusal {
  code: string;
  message: string;
}

/**
 * One channel per turn, named by a random id the server generates: the browser
 * never sees or chooses it, so one identity cannot listen to another's turn.
 */
export const turnChannel = realtime.channel({
  name: (turnId: string) => `turn:${turnId}`,
  topics: {
    chunk: { schema: staticSchema<TurnChunkMessage & Record<string, unknown>>() },
    refused: { schema: staticSchema<TurnRefusal & Record<string, unknown>>() },
  },
});

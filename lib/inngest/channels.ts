import { realtime, staticSchema } from "inngest";
import type { TurnChunkBatch, TurnRefusal } from "@/lib/protocol/turn-events";

/**
 * One channel per turn, named by a random id the server generates: the browser
 * never sees or chooses it, so one identity cannot listen to another's turn.
 */
export const turnChannel = realtime.channel({
  name: (turnId: string) => `turn:${turnId}`,
  topics: {
    chunks: { schema: staticSchema<TurnChunkBatch & Record<string, unknown>>() },
    refused: { schema: staticSchema<TurnRefusal & Record<string, unknown>>() },
  },
});

import { realtime, staticSchema } from "inngest";
import type { TurnChunkMessage, TurnRefusal } from "@/lib/protocol/turn-events";

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

import "server-only";
import type { TurnChunkMessage, TurnRefusal } from "@/lib/protocol/turn-events";
import { turnChannel } from "./channels";
import type { InngestClient } from "./client";

/** Where the chat-turn function's output goes. Production publishes to Inngest realtime; tests record. */
export interface TurnPublisher {
  /** Chunks in order, as one realtime message. */
  chunks(turnId: string, messages: TurnChunkMessage[]): Promise<void>;
  refused(turnId: string, refusal: TurnRefusal): Promise<void>;
}

export const realtimePublisher = (inngest: InngestClient): TurnPublisher => ({
  // Not step.realtime.publish: deltas must stream while the model step runs,
  // and the turn already wraps every once-only chunk in a step of its own.
  chunks: async (turnId, messages) => void (await inngest.realtime.publish(turnChannel(turnId).chunks, { messages })),
  refused: async (turnId, refusal) => void (await inngest.realtime.publish(turnChannel(turnId).refused, refusal)),
});

import type { UIMessageChunk } from "ai";
import { dataChunk, type HistorySource } from "@/lib/protocol/chat";

/** Where a turn's output goes; the runtime decides how it reaches the client. */
export type Publish = (chunk: UIMessageChunk) => void | Promise<void>;

export interface TextChunkSink {
  textStart(id: string): Promise<void>;
  textDelta(id: string, delta: string): Promise<void>;
  textEnd(id: string): Promise<void>;
}

export function textSink(publish: Publish): TextChunkSink {
  return {
    textStart: async (id) => void (await publish({ type: "text-start", id })),
    textDelta: async (id, delta) => void (await publish({ type: "text-delta", id, delta })),
    textEnd: async (id) => void (await publish({ type: "text-end", id })),
  };
}

export const threadChunk = (threadId: string, historySource: HistorySource): UIMessageChunk =>
  dataChunk("thread", { threadId, historySource });

/** The server's signatures for messages it stored, for the client to send back with its copy. */
export const signaturesChunk = (signatures: { id: string; signature: string }[]): UIMessageChunk => dataChunk("signatures", { signatures });

export const stoppedChunk: UIMessageChunk = dataChunk("status", { status: "stopped" });

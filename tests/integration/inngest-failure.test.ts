import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { TurnChunkBatch } from "@/lib/protocol/turn-events";
import type { TurnHistory } from "@threadline/history/contract";
import { type ServeHandlers } from "../support/in-process-inngest";
import { turnEventData } from "../support/turn-events";
import { integrationApp } from "../support/integration";

// A run that fails for good outside the model step must still end the
// client's stream. The stand-in's executor plays Inngest's part: retries, then
// one last request that throws the step's error into the function.
const t = integrationApp({ runtime: "inngest", inngest: { retryDelayMs: 5, handlers: brokenReadsServe } });

/** The chat function served with a history whose reads always fail. */
async function brokenReadsServe(): Promise<ServeHandlers> {
  const { serve } = await import("inngest/next");
  const inngest = (await import("@/lib/app")).app().inngest();
  const { createChatTurnFunction } = await import("@/inngest/functions/chat-turn");
  const { realtimePublisher } = await import("@/lib/inngest/publisher");
  const { app } = await import("@/lib/app");
  const { PostgresHistoryAdapter } = await import("@threadline/history/postgres");
  const real = new PostgresHistoryAdapter(t.pool);
  const brokenReads: TurnHistory = {
    turns: real.turns,
    summaries: real.summaries,
    titles: real.titles,
    appendUserMessage: (ctx) => real.appendUserMessage(ctx),
    get: async () => {
      throw new Error("database unavailable");
    },
    appendResults: (ctx) => real.appendResults(ctx),
  };
  return serve({
    client: inngest,
    functions: [createChatTurnFunction(app().inngest(), { ...app(), publisher: realtimePublisher(app().inngest()), history: () => brokenReads })],
  }) as unknown as ServeHandlers;
}

describe("a run that fails for good", () => {
  it("publishes an error chunk as its last message, so the stream ends instead of timing out", async () => {
    const owner = `owner-${randomUUID()}`;
    const { PostgresHistoryAdapter } = await import("@threadline/history/postgres");
    const { threadId } = await new PostgresHistoryAdapter(t.pool).createThread({ owner });
    const inngest = (await import("@/lib/app")).app().inngest();
    const { CHAT_TURN_EVENT } = await import("@/lib/protocol/turn-events");
    const turnId = randomUUID();
    const { ids } = await inngest.send({
      name: CHAT_TURN_EVENT,
      data: turnEventData({ turnId, owner, threadId, content: "load my history" }),
    });
    const [run] = await t.standin.waitForRuns(ids[0]);
    expect(run.status).toBe("failed");
    const chunks = t.standin.published
      .filter((m) => m.channel === `turn:${turnId}` && m.topic === "chunks")
      .flatMap((m) => (m.data as TurnChunkBatch).messages.map((message) => message.chunk));
    expect(chunks[0]).toMatchObject({ type: "data-thread" });
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: "The server failed while answering. Please try again." });
    expect(t.mock.requests).toHaveLength(0);
  });
});

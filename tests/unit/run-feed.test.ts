import { describe, expect, it } from "vitest";
import type { UIMessageChunk } from "ai";
import { RunFeed, type Message } from "@/lib/inngest/run-feed";

// A server reads a run's chunks off Inngest realtime, where one publish can
// overtake another: the thread's announcement must still come first, with
// nothing lost or repeated.

const batch = (...chunks: UIMessageChunk[]): Message => ({ topic: "chunks", data: { messages: chunks.map((chunk) => ({ attempt: 0, chunk })) } });
const thread = { type: "data-thread", data: { threadId: "t1", historySource: "new" } } as UIMessageChunk;
const history = { type: "data-history", data: { policy: "all" }, transient: true } as UIMessageChunk;
const start = { type: "start", messageId: "r1" } as UIMessageChunk;
const finish = { type: "finish" } as UIMessageChunk;

function feedOf(messages: Message[]): RunFeed {
  const stream = new ReadableStream<Message>({
    start(controller) {
      for (const message of messages) controller.enqueue(message);
      controller.close();
    },
  });
  return new RunFeed(stream.getReader(), () => {});
}

async function read(feed: RunFeed, first: UIMessageChunk): Promise<string[]> {
  const types: string[] = [];
  const reader = feed.stream(first, 1_000).getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) types.push(next.value.type);
  return types;
}

describe("a run's announcement of its thread", () => {
  it("comes first when it came first", async () => {
    const feed = feedOf([batch(thread, history), batch(start), batch(finish)]);
    const first = await feed.announcement(await feed.first(1_000), 1_000);
    expect(await read(feed, first)).toEqual(["data-thread", "data-history", "start", "finish"]);
  });

  it("comes first when a transient chunk overtook it, in its own message or the same one", async () => {
    for (const messages of [[batch(history), batch(thread), batch(start), batch(finish)], [batch(history, thread, start), batch(finish)]]) {
      const feed = feedOf(messages);
      const first = await feed.announcement(await feed.first(1_000), 1_000);
      expect(await read(feed, first)).toEqual(["data-thread", "data-history", "start", "finish"]);
    }
  });

  it("is not waited for behind a chunk that must not come before it", async () => {
    const feed = feedOf([batch(start), batch(thread), batch(finish)]);
    const first = await feed.announcement(await feed.first(1_000), 1_000);
    expect(first.type).toBe("start"); // the caller refuses such a run
  });
});

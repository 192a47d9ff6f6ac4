import { describe, expect, it } from "vitest";
import { LiveBus } from "@/lib/live/bus";
import { threadNewsStream } from "@/lib/live/news-producer";

/** Reads the stream's text until it holds `wanted`. */
async function readUntil(reader: ReadableStreamDefaultReader<string>, wanted: string, text = ""): Promise<string> {
  while (!text.includes(wanted)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended without ${JSON.stringify(wanted)}: ${JSON.stringify(text)}`);
    text += value;
  }
  return text;
}

describe("the owner's news stream", () => {
  it("opens with a comment, sends each piece of the owner's news as an event, keeps quiet links alive with heartbeats, and lets go when cancelled", async () => {
    const bus = new LiveBus();
    const stream = threadNewsStream(bus, "owner-a", new AbortController().signal, { heartbeatMs: 5 });
    const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    expect(await readUntil(reader, ": open\n\n")).toBe(": open\n\n");
    expect(bus.size).toBe(1);

    bus.emit("threads", "owner-b", "not-mine");
    bus.emit("threads", "owner-a", "t1");
    // Sent in order: another owner's news, had it been let through, would come first.
    const text = await readUntil(reader, 'data: {"type":"threads","threadId":"t1"}\n\n');
    expect(text.split("\n\n").filter((frame) => frame.startsWith("data: "))).toEqual(['data: {"type":"threads","threadId":"t1"}']);
    await readUntil(reader, ": heartbeat\n\n");

    await reader.cancel();
    expect(bus.size).toBe(0);
  });

  it("ends at once for a request already gone", async () => {
    const bus = new LiveBus();
    const reader = threadNewsStream(bus, "owner-a", AbortSignal.abort()).getReader();
    expect(await reader.read()).toEqual({ value: undefined, done: true });
    expect(bus.size).toBe(0);
  });

  it("is closed, and lets go of the bus, once its client leaves more than its buffer untaken; a client that reads keeps it", async () => {
    const bus = new LiveBus();
    let ended = 0;
    const stalled = threadNewsStream(bus, "owner-a", new AbortController().signal, { maxBufferBytes: 4_096, onEnd: () => ended++ });
    const reading = threadNewsStream(bus, "owner-a", new AbortController().signal, { maxBufferBytes: 4_096 });
    const reader = reading.pipeThrough(new TextDecoderStream()).getReader();
    let got = "";
    for (let i = 0; i < 500; i++) {
      bus.emit("threads", "owner-a", `thread-${i}`);
      got = await readUntil(reader, `"thread-${i}"`, got); // this client keeps up
    }
    expect(ended).toBe(1);
    expect(bus.size).toBe(1); // the reading one
    // What the stalled client finds when it reads at last: an error, not a stream that goes on.
    const late = stalled.getReader();
    await expect(
      (async () => {
        for (;;) if ((await late.read()).done) return;
      })(),
    ).rejects.toThrow("The client stopped reading its news.");
    await reader.cancel();
    expect(bus.size).toBe(0);
    expect(ended).toBe(1);
  });
});

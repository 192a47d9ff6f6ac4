import type { UIMessageChunk } from "ai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { coalescing } from "@/lib/agent/model/coalesce";

describe("coalescing token deltas", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  const recorder = () => {
    const sent: { chunk: UIMessageChunk; at: number }[] = [];
    return { sent, publish: (chunk: UIMessageChunk) => void sent.push({ chunk, at: Date.now() }) };
  };
  const delta = (text: string, id = "t"): UIMessageChunk => ({ type: "text-delta", id, delta: text });

  it("sends the first delta at once, merges the ones that follow within the window, and never holds one longer", async () => {
    const { sent, publish } = recorder();
    const out = coalescing(publish, 15);
    const start = Date.now();
    await out(delta("Hel"));
    expect(sent.map((s) => s.chunk)).toEqual([delta("Hel")]);
    for (const piece of ["lo", ", ", "wor"]) {
      await vi.advanceTimersByTimeAsync(3);
      await out(delta(piece));
    }
    expect(sent).toHaveLength(1); // held, the window is still open
    await vi.advanceTimersByTimeAsync(15);
    expect(sent.map((s) => s.chunk)).toEqual([delta("Hel"), delta("lo, wor")]);
    expect(sent[1].at - start).toBeLessThanOrEqual(15);
    // After a quiet spell the next delta goes out at once again.
    await vi.advanceTimersByTimeAsync(100);
    await out(delta("ld"));
    expect(sent.at(-1)!.chunk).toEqual(delta("ld"));
  });

  it("keeps the order: any other chunk sends what is held first, and parts are never merged into each other", async () => {
    const { sent, publish } = recorder();
    const out = coalescing(publish, 15);
    const chunks: UIMessageChunk[] = [
      { type: "text-start", id: "a" },
      delta("one ", "a"),
      delta("two ", "a"),
      delta("three", "a"),
      { type: "reasoning-delta", id: "a", delta: "hmm" },
      delta("x", "b"),
      delta("y", "b"),
      { type: "text-end", id: "a" },
      { type: "finish" },
    ];
    for (const chunk of chunks) await out(chunk);
    await out.flush();
    const types = sent.map((s) => s.chunk.type);
    expect(types[0]).toBe("text-start");
    expect(types.slice(-2)).toEqual(["text-end", "finish"]);
    const text = (id: string, type = "text-delta") =>
      sent.map((s) => (s.chunk.type === type && "id" in s.chunk && s.chunk.id === id ? (s.chunk as { delta: string }).delta : "")).join("");
    expect(text("a")).toBe("one two three");
    expect(text("b")).toBe("xy");
    expect(text("a", "reasoning-delta")).toBe("hmm");
    expect(sent.length).toBeLessThan(chunks.length);
  });

  it("throws a failed publish of a held delta from the next call, so the step that wrote it notices", async () => {
    let calls = 0;
    const out = coalescing(() => {
      if (++calls === 2) throw new Error("realtime is down");
    }, 15);
    await out(delta("a"));
    await out(delta("b"));
    await vi.advanceTimersByTimeAsync(20);
    await expect(out({ type: "finish" })).rejects.toThrow("realtime is down");
  });
});

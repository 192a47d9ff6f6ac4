import { afterEach, describe, expect, it, vi } from "vitest";
import type { ProgressRow } from "@/lib/live/store";
import { TurnProgress } from "@/lib/live/progress-writer";

const delta = (n: number) => ({ attempt: 0, chunk: { type: "text-delta" as const, id: "t", delta: `${n} ` } });

/** A store whose writes finish only when the test says, recording the rows in the order they were started. */
function heldStore() {
  const started: ProgressRow[] = [];
  const finish: (() => void)[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let fail = false;
  const write = (row: ProgressRow) => {
    started.push(row);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    return new Promise<void>((resolve, reject) =>
      finish.push(() => {
        inFlight--;
        if (fail) reject(new Error("database away"));
        else resolve();
      }),
    );
  };
  return {
    write,
    started,
    /** Lets every write started or queued so far finish, one after another. */
    releaseAll: async () => {
      for (;;) {
        await vi.advanceTimersByTimeAsync(0);
        const next = finish.shift();
        if (!next) return;
        next();
      }
    },
    failNext: () => (fail = true),
    get mostInFlight() {
      return mostInFlight;
    },
  };
}

describe("a turn's progress writer", () => {
  afterEach(() => vi.useRealTimers());

  it("writes what came within an interval as one row, one write at a time, in order, the last one final; each write announced", async () => {
    vi.useFakeTimers();
    const store = heldStore();
    const emitted: string[] = [];
    const writer = new TurnProgress({ write: store.write, emit: (id) => emitted.push(id), intervalMs: 200 }).writer("turn-1");

    for (let n = 0; n < 5; n++) writer.push(delta(n));
    expect(store.started).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(store.started.map((r) => r.messages.length)).toEqual([5]);

    // While that write is in flight, more come and the interval passes again: the next write waits for the first.
    for (let n = 5; n < 8; n++) writer.push(delta(n));
    await vi.advanceTimersByTimeAsync(200);
    expect(store.started).toHaveLength(1);
    writer.push(delta(8));
    const ended = writer.end();
    await store.releaseAll();
    await ended;

    expect(store.mostInFlight).toBe(1);
    expect(store.started.map((r) => r.final)).toEqual([false, false, true]);
    const text = store.started.flatMap((r) => r.messages.map((m) => (m.chunk as { delta: string }).delta)).join("");
    expect(text).toBe("0 1 2 3 4 5 6 7 8 ");
    expect(emitted).toEqual(["turn-1", "turn-1", "turn-1"]);
    // Only the first write of the process sweeps; the next sweep is a minute away.
    expect(store.started.map((r) => r.sweep)).toEqual([true, false, false]);
  });

  it("a failed write is dropped, said once, and the turn's writer writes no more; nothing reaches the turn", async () => {
    vi.useFakeTimers();
    const store = heldStore();
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    const writer = new TurnProgress({ write: store.write, emit: () => {}, intervalMs: 50 }).writer("turn-2");
    writer.push(delta(1));
    await vi.advanceTimersByTimeAsync(50);
    store.failNext();
    await store.releaseAll();
    writer.push(delta(2));
    await vi.advanceTimersByTimeAsync(50);
    await expect(writer.end()).resolves.toBeUndefined();
    expect(store.started).toHaveLength(1);
    expect(said).toHaveBeenCalledTimes(1);
    said.mockRestore();
  });

  it("an idle turn writes nothing until it ends, and then one final row", async () => {
    vi.useFakeTimers();
    const store = heldStore();
    const writer = new TurnProgress({ write: store.write, emit: () => {}, intervalMs: 50 }).writer("turn-3");
    await vi.advanceTimersByTimeAsync(500);
    await writer.flush();
    expect(store.started).toHaveLength(0);
    const ended = writer.end();
    await store.releaseAll();
    await ended;
    expect(store.started).toEqual([{ turnId: "turn-3", messages: [], final: true, sweep: true }]);
  });
});

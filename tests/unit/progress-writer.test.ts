import { afterEach, describe, expect, it, vi } from "vitest";
import type { ProgressRow } from "@/lib/live/store";
import { IDLE_MS, LINGER_MS, TurnProgress, WATCH_MS } from "@/lib/live/progress-writer";

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
  /** Lets every write started or queued so far finish, one after another. */
  const releaseAll = async () => {
    for (;;) {
      await vi.advanceTimersByTimeAsync(0);
      const next = finish.shift();
      if (!next) return;
      next();
    }
  };
  return {
    write,
    started,
    releaseAll,
    /** What `call` started, its writes let through to its end. */
    through: async (call: () => Promise<void>) => {
      const done = call();
      await releaseAll();
      await done;
    },
    failNext: () => (fail = true),
    get mostInFlight() {
      return mostInFlight;
    },
  };
}

/** A process's asks, as the bus carries them: `ask(turnId)` reaches the writer of that turn while it listens. */
function asks() {
  const listening = new Map<string, () => void>();
  return {
    onAsk: (turnId: string, ask: () => void) => {
      listening.set(turnId, ask);
      return () => listening.delete(turnId);
    },
    ask: (turnId: string) => listening.get(turnId)?.(),
    listening: (turnId: string) => listening.has(turnId),
  };
}

const text = (rows: ProgressRow[]) => rows.flatMap((r) => r.messages.map((m) => (m.chunk as { delta: string }).delta)).join("");

/** Fake timers, a held store and a process's asks, and the progress that writes to the one and hears the other. */
function onFakeTime({ intervalMs = 200, emit = () => {} }: { intervalMs?: number; emit?: (turnId: string) => void } = {}) {
  vi.useFakeTimers();
  const store = heldStore();
  const bus = asks();
  return { store, bus, progress: new TurnProgress({ write: store.write, emit, onAsk: bus.onAsk, intervalMs }) };
}

describe("a turn's progress writer", () => {
  afterEach(() => vi.useRealTimers());

  it("writes nothing for a turn nobody asks about: not per interval, not at a step's end, not at its end", async () => {
    const { store, bus, progress } = onFakeTime();
    const writer = progress.writer("quiet");
    for (let n = 0; n < 50; n++) {
      writer.push(delta(n));
      await vi.advanceTimersByTimeAsync(100);
    }
    await writer.flush();
    await writer.end();
    await vi.advanceTimersByTimeAsync(LINGER_MS);
    expect(store.started).toHaveLength(0);
    // Once it has lingered, it no longer listens, and an ask finds nobody.
    expect(bus.listening("quiet")).toBe(false);
    bus.ask("quiet");
    await store.releaseAll();
    expect(store.started).toHaveLength(0);
  });

  it("answers an ask at once with everything so far, then a row per interval while asks come, in order, one write at a time, the last final", async () => {
    const emitted: string[] = [];
    const { store, bus, progress } = onFakeTime({ emit: (id) => emitted.push(id) });
    const writer = progress.writer("turn-1");

    for (let n = 0; n < 5; n++) writer.push(delta(n));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.started).toHaveLength(0);
    bus.ask("turn-1");
    await vi.advanceTimersByTimeAsync(0);
    expect(store.started.map((r) => r.messages.length)).toEqual([5]);

    // While that write is in flight, more come and the interval passes again: the next write waits for the first.
    for (let n = 5; n < 8; n++) writer.push(delta(n));
    await vi.advanceTimersByTimeAsync(200);
    expect(store.started).toHaveLength(1);
    writer.push(delta(8));
    await store.through(() => writer.end());

    expect(store.mostInFlight).toBe(1);
    expect(store.started.map((r) => r.final)).toEqual([false, false, true]);
    expect(text(store.started)).toBe("0 1 2 3 4 5 6 7 8 ");
    expect(emitted).toEqual(["turn-1", "turn-1", "turn-1"]);
    // Only the first write of the process sweeps; the next sweep is a minute away.
    expect(store.started.map((r) => r.sweep)).toEqual([true, false, false]);
    expect(bus.listening("turn-1")).toBe(false);
  });

  it("stops writing once the asks stop, and still writes its end, with everything since, when the turn ends", async () => {
    const { store, bus, progress } = onFakeTime();
    const writer = progress.writer("turn-lapse");
    writer.push(delta(0));
    bus.ask("turn-lapse");
    await store.releaseAll();
    expect(store.started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(WATCH_MS);
    for (let n = 1; n < 20; n++) {
      writer.push(delta(n));
      await vi.advanceTimersByTimeAsync(200);
      await store.releaseAll();
    }
    expect(store.started).toHaveLength(1);
    await store.through(() => writer.end());
    expect(store.started.map((r) => r.final)).toEqual([false, true]);
    expect(text(store.started)).toBe(Array.from({ length: 20 }, (_, n) => `${n} `).join(""));
  });

  it("a turn that ended unasked lets its chunks go, and answers an ask that comes soon after with its end alone, once", async () => {
    const { store, bus, progress } = onFakeTime();
    const writer = progress.writer("late");
    for (let n = 0; n < 3; n++) writer.push(delta(n));
    await writer.end();
    await vi.advanceTimersByTimeAsync(1_000);
    bus.ask("late");
    bus.ask("late");
    await store.releaseAll();
    expect(store.started.map((r) => [r.messages.length, r.final])).toEqual([[0, true]]);
    expect(bus.listening("late")).toBe(false);
  });

  it("where steps may move to another process, each step's end writes what it holds, asked or not; a failed step's always does", async () => {
    const { store, bus, progress } = onFakeTime();
    const moving = progress.writer("moving", { stepsMove: true });
    moving.push(delta(0));
    await store.through(() => moving.flush());
    await store.through(() => moving.end());
    expect(store.started.map((r) => [r.turnId, r.messages.length, r.final])).toEqual([
      ["moving", 1, false],
      ["moving", 0, true],
    ]);

    const staying = progress.writer("staying");
    staying.push(delta(1));
    await staying.flush();
    expect(store.started).toHaveLength(2);
    await store.through(() => staying.handOver());
    await store.through(() => staying.end());
    expect(store.started.slice(2).map((r) => [r.turnId, r.messages.length, r.final])).toEqual([
      ["staying", 1, false],
      ["staying", 0, true],
    ]);
  });

  it("a writer left by a request that ended without its turn's end stops listening once idle, and listens again when it pushes", async () => {
    const { store, bus, progress } = onFakeTime();
    const writer = progress.writer("left");
    writer.push(delta(0));
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    expect(bus.listening("left")).toBe(true); // it pushed within the last look
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    expect(bus.listening("left")).toBe(false);
    expect(vi.getTimerCount()).toBe(0); // nor its look at the clock: nothing holds the writer
    writer.push(delta(1));
    expect(bus.listening("left")).toBe(true);
    bus.ask("left");
    await store.releaseAll();
    expect(text(store.started)).toBe("0 1 ");
    await store.through(() => writer.end());
    expect(bus.listening("left")).toBe(false);
  });

  it("a failed write is dropped, said once, and the turn's writer writes no more; nothing reaches the turn", async () => {
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    const { store, bus, progress } = onFakeTime({ intervalMs: 50 });
    const writer = progress.writer("turn-2");
    writer.push(delta(1));
    bus.ask("turn-2");
    await vi.advanceTimersByTimeAsync(0);
    store.failNext();
    await store.releaseAll();
    writer.push(delta(2));
    await vi.advanceTimersByTimeAsync(50);
    await expect(writer.end()).resolves.toBeUndefined();
    expect(store.started).toHaveLength(1);
    expect(said).toHaveBeenCalledTimes(1);
    expect(bus.listening("turn-2")).toBe(false);
    said.mockRestore();
  });
});

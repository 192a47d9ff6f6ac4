import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { watchModelCall } from "@/lib/agent/model/model-watchdog";

// On a fake clock: the watchdog's rules, not how fast a machine is.
beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("a model call's watchdog", () => {
  it("ends a call that has been silent for the idle time, counted from the last chunk heard", () => {
    const watchdog = watchModelCall(undefined, 1_000);
    vi.advanceTimersByTime(600);
    watchdog.heard();
    vi.advanceTimersByTime(900);
    expect(watchdog.signal.aborted).toBe(false);
    expect(watchdog.silenceMs()).toBeUndefined();
    vi.advanceTimersByTime(100);
    expect(watchdog.signal.aborted).toBe(true);
    expect(watchdog.silenceMs()).toBe(1_000);
    watchdog.dispose();
  });

  it("without an idle time, never ends a call for silence", () => {
    const watchdog = watchModelCall(undefined, undefined);
    vi.advanceTimersByTime(24 * 3_600_000);
    expect(watchdog.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ends the call with the turn's reason when the turn is stopped, and not for silence", () => {
    const turn = new AbortController();
    const watchdog = watchModelCall(turn.signal, 1_000);
    turn.abort(new Error("stopped by the user"));
    expect(watchdog.signal.aborted).toBe(true);
    expect(watchdog.signal.reason).toEqual(new Error("stopped by the user"));
    watchdog.dispose();
    expect(watchdog.silenceMs()).toBeUndefined();
  });

  it("starts ended under a turn that already was", () => {
    const turn = new AbortController();
    turn.abort();
    const watchdog = watchModelCall(turn.signal, undefined);
    expect(watchdog.signal.aborted).toBe(true);
    watchdog.dispose();
  });

  it("once disposed, leaves no timer and no listener on the turn's signal: the turn no longer reaches the call", () => {
    const turn = new AbortController();
    const added = vi.spyOn(turn.signal, "addEventListener");
    const removed = vi.spyOn(turn.signal, "removeEventListener");
    const watchdog = watchModelCall(turn.signal, 1_000);
    watchdog.dispose();
    expect(vi.getTimerCount()).toBe(0);
    expect(removed.mock.calls.map(([type, listener]) => [type, listener])).toEqual(added.mock.calls.map(([type, listener]) => [type, listener]));
    turn.abort();
    expect(watchdog.signal.aborted).toBe(false);
  });
});

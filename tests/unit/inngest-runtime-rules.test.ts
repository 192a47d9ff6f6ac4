import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { AttemptFilter } from "@/lib/runtime/inngest-stream";
import { inngestConfigured } from "@/lib/runtime";
import { inngestDevRefusal } from "@/lib/runtime/inngest-env.mjs";

describe("choosing the runtime", () => {
  it("uses Inngest for a dev server or a full set of keys, inline otherwise", () => {
    expect(inngestConfigured({ INNGEST_DEV: "1" })).toBe(true);
    expect(inngestConfigured({ INNGEST_DEV: "http://localhost:8288" })).toBe(true);
    expect(inngestConfigured({ INNGEST_EVENT_KEY: "e", INNGEST_SIGNING_KEY: "signkey-prod-1" })).toBe(true);
    expect(inngestConfigured({})).toBe(false);
    expect(inngestConfigured({ INNGEST_DEV: "0" })).toBe(false);
    expect(inngestConfigured({ INNGEST_EVENT_KEY: "e" })).toBe(false);
  });

  it("refuses the dev server's unsigned mode in production unless it is declared local", () => {
    expect(inngestDevRefusal({ NODE_ENV: "production", INNGEST_DEV: "1" })).toContain("INNGEST_DEV_IS_LOCAL=1");
    expect(inngestDevRefusal({ NODE_ENV: "production", INNGEST_DEV: "http://inngest:8288", INNGEST_DEV_IS_LOCAL: "0" })).toBeDefined();
    expect(inngestDevRefusal({ NODE_ENV: "production", INNGEST_DEV: "1", INNGEST_DEV_IS_LOCAL: "1" })).toBeUndefined();
    expect(inngestDevRefusal({ NODE_ENV: "development", INNGEST_DEV: "1" })).toBeUndefined();
    expect(inngestDevRefusal({ NODE_ENV: "production", INNGEST_EVENT_KEY: "e", INNGEST_SIGNING_KEY: "s" })).toBeUndefined();
    expect(inngestDevRefusal({ NODE_ENV: "production" })).toBeUndefined();
  });
});

describe("the attempt filter", () => {
  const delta = (text: string): UIMessageChunk => ({ type: "text-delta", id: "m", delta: text });
  const run = (filter: AttemptFilter, messages: [number, UIMessageChunk][]) =>
    messages.flatMap(([attempt, chunk]) => filter.accept({ attempt, chunk }));

  it("tells the client to drop a failed try's partial text and ignores its stragglers", () => {
    const out = run(new AttemptFilter(), [
      [0, { type: "start-step" }],
      [0, { type: "text-start", id: "m" }],
      [0, delta("partial ")],
      [1, { type: "start-step" }],
      [0, delta("late ")],
      [1, { type: "text-start", id: "m" }],
      [1, delta("whole")],
      [1, { type: "finish-step" }],
      // The next step's attempts count from 0 again.
      [0, { type: "finish" }],
    ]);
    expect(out.map((c) => c.type)).toEqual(["start-step", "text-start", "text-delta", "data-retry", "text-start", "text-delta", "finish-step", "finish"]);
    expect(out[3]).toEqual({ type: "data-retry", data: { keepTextParts: 0, dropTextParts: 1 }, transient: true });
    expect(out.filter((c) => c.type === "text-delta").map((c) => (c as { delta: string }).delta)).toEqual(["partial ", "whole"]);
  });

  it("keeps the text of steps that finished before the retry", () => {
    const filter = new AttemptFilter();
    run(filter, [
      [0, { type: "start-step" }],
      [0, { type: "text-start", id: "a" }],
      [0, { type: "finish-step" }],
      [0, { type: "start-step" }],
      [0, { type: "text-start", id: "b" }],
    ]);
    expect(filter.accept({ attempt: 2, chunk: { type: "start-step" } })).toEqual([
      { type: "data-retry", data: { keepTextParts: 1, dropTextParts: 1 }, transient: true },
    ]);
  });

  it("passes the turn's end through after a model step that failed on every attempt", () => {
    const out = run(new AttemptFilter(), [
      [0, { type: "start-step" }],
      [0, { type: "text-start", id: "m" }],
      [3, { type: "start-step" }],
      [3, { type: "text-start", id: "m" }],
      [0, { type: "error", errorText: "The model failed" }],
    ]);
    expect(out.at(-1)).toEqual({ type: "error", errorText: "The model failed" });
  });

  it("says nothing when a retry comes before any text was shown", () => {
    const filter = new AttemptFilter();
    filter.accept({ attempt: 0, chunk: { type: "start-step" } });
    expect(filter.accept({ attempt: 1, chunk: { type: "start-step" } })).toEqual([]);
    expect(filter.accept({ attempt: 1, chunk: { type: "text-start", id: "m" } })).toEqual([{ type: "text-start", id: "m" }]);
  });
});

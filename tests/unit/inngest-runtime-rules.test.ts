import { readUIMessageStream, type UIMessageChunk } from "ai";
import { parseEnv } from "@/lib/settings";
import type { ChatMessage } from "@/lib/protocol/chat";
import { withoutRetriedParts, type RetryNotice } from "@/lib/client/retried-parts";
import { describe, expect, it } from "vitest";
import { AttemptFilter } from "@/lib/live/attempt-filter";
import { inngestConfigured } from "@/lib/inngest/settings";
import { inngestDevRefusal } from "@/lib/inngest/env.mjs";

describe("choosing the runtime", () => {
  it("uses Inngest for a dev server or a full set of keys, inline otherwise", () => {
    expect(inngestConfigured(parseEnv({ INNGEST_DEV: "1" }))).toBe(true);
    expect(inngestConfigured(parseEnv({ INNGEST_DEV: "http://localhost:8288" }))).toBe(true);
    expect(inngestConfigured(parseEnv({ INNGEST_EVENT_KEY: "e", INNGEST_SIGNING_KEY: "signkey-prod-1" }))).toBe(true);
    expect(inngestConfigured(parseEnv({}))).toBe(false);
    expect(inngestConfigured(parseEnv({ INNGEST_DEV: "0" }))).toBe(false);
    expect(inngestConfigured(parseEnv({ INNGEST_EVENT_KEY: "e" }))).toBe(false);
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
  type Message = [attempt: number, step: string | undefined, chunk: UIMessageChunk];
  const run = (filter: AttemptFilter, messages: Message[]) =>
    messages.flatMap(([attempt, step, chunk]) => filter.accept({ attempt, step, chunk }));

  /** What the browser ends up showing: the SDK's own reader, then the client's rule for retried parts. */
  async function shown(chunks: UIMessageChunk[]) {
    const notices: RetryNotice[] = [];
    let last: ChatMessage | undefined;
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) {
          if (chunk.type === "data-retry") notices.push((chunk as { data: RetryNotice }).data);
          else controller.enqueue(chunk);
        }
        controller.close();
      },
    });
    for await (const message of readUIMessageStream<ChatMessage>({ stream })) last = message;
    return withoutRetriedParts(last!.parts, notices).filter((p) => p.type !== "step-start");
  }

  const MODEL = "model:0:Researcher:0";
  const TOOL = "tool:0:Researcher:0:0";

  it("withdraws every part a failed attempt of a step wrote (reasoning, text, tool input) and ignores its stragglers", async () => {
    const out = run(new AttemptFilter(), [
      [0, undefined, { type: "start", messageId: "reply" }],
      [0, MODEL, { type: "start-step" }],
      [0, MODEL, { type: "reasoning-start", id: "r0" }],
      [0, MODEL, { type: "reasoning-delta", id: "r0", delta: "half a thought" }],
      [0, MODEL, { type: "text-start", id: "t0" }],
      [0, MODEL, { type: "text-delta", id: "t0", delta: "partial " }],
      [0, MODEL, { type: "tool-input-start", toolCallId: "c0", toolName: "calculate", dynamic: true }],
      [1, MODEL, { type: "start-step" }],
      [0, MODEL, { type: "text-delta", id: "t0", delta: "late straggler" }],
      [1, MODEL, { type: "text-start", id: "t1" }],
      [1, MODEL, { type: "text-delta", id: "t1", delta: "whole" }],
      [1, MODEL, { type: "text-end", id: "t1" }],
      [1, MODEL, { type: "finish-step" }],
      [0, undefined, { type: "finish" }],
    ]);
    expect(out.filter((c) => c.type === "data-retry")).toEqual([{ type: "data-retry", data: { step: MODEL, attempt: 1 }, transient: true }]);
    expect(JSON.stringify(out)).not.toContain("late straggler");
    const parts = await shown(out);
    expect(parts.map((p) => [p.type, "text" in p ? p.text : ""])).toEqual([["text", "whole"]]);
  });

  it("keeps what earlier steps wrote when a later step is retried, and tracks each step's attempts on its own", async () => {
    const out = run(new AttemptFilter(), [
      [0, undefined, { type: "start", messageId: "reply" }],
      [1, MODEL, { type: "text-start", id: "a" }], // this step's second attempt, the first one silent
      [1, MODEL, { type: "text-delta", id: "a", delta: "kept" }],
      [1, MODEL, { type: "text-end", id: "a" }],
      [1, MODEL, { type: "tool-input-available", toolCallId: "c", toolName: "calculate", input: { expression: "1+1" }, dynamic: true }],
      [0, TOOL, { type: "tool-output-error", toolCallId: "c", errorText: "flaky", dynamic: true }],
      [1, TOOL, { type: "tool-output-available", toolCallId: "c", output: { result: "2" }, dynamic: true }],
      [0, undefined, { type: "finish" }],
    ]);
    // The model step's attempt 1 came first: nothing to withdraw there.
    expect(out.filter((c) => c.type === "data-retry").map((c) => (c as { data: unknown }).data)).toEqual([{ step: TOOL, attempt: 1 }]);
    const parts = await shown(out);
    expect(parts.map((p) => p.type)).toEqual(["text", "dynamic-tool"]);
    expect(parts[1]).toMatchObject({ state: "output-available", output: { result: "2" } });
  });

  it("passes the turn's end through after a model step that failed on every attempt", () => {
    const out = run(new AttemptFilter(), [
      [0, MODEL, { type: "start-step" }],
      [3, MODEL, { type: "start-step" }],
      [0, undefined, { type: "error", errorText: "The model failed" }],
    ]);
    expect(out.at(-1)).toEqual({ type: "error", errorText: "The model failed" });
  });
});

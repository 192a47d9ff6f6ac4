import { randomUUID } from "node:crypto";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { chatTurn, visitor } from "../support/api";
import { Reachability } from "../support/reachability";
import * as chat from "@/app/api/chat/route";
import { integrationApp } from "../support/integration";

// A server answers turn after turn for weeks: once a turn has ended, nothing
// of it may stay reachable, or its memory grows with every turn it serves.
// Hundreds of offline tool turns (Triage hands over, Researcher calls
// calculate, then answers) through the chat route, the inline runtime and the
// real database; every abort signal the turn combines, and every model call's
// options (the messages the network sent) and stream, are watched until the
// garbage collector takes them.

const reachability = new Reachability();

// The real offline model, its calls watched on the way through.
vi.mock("@/lib/model/offline-model", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/model/offline-model")>();
  return {
    ...real,
    createOfflineModel: (modelId?: string): LanguageModelV3 => {
      const model = real.createOfflineModel(modelId);
      return {
        ...model,
        async doStream(options) {
          reachability.watch("model call options", options);
          reachability.watch("turn signal", options.abortSignal);
          const result = await model.doStream(options);
          reachability.watch("model stream", result.stream);
          return result;
        },
      };
    },
  };
});

// The turn's own signals (Stop, the turn's bound, a model's silence) meet in AbortSignal.any: each one passed or made there is watched.
const realAny = AbortSignal.any.bind(AbortSignal);
AbortSignal.any = (signals: AbortSignal[]) => {
  const combined = realAny(signals);
  for (const signal of [combined, ...signals]) reachability.watch("turn signal", signal);
  return combined;
};

const TURNS = 200;
const CONCURRENCY = 20;

// Many turns from one test: the per-minute limits would refuse them.
const t = integrationApp({ model: "offline", settings: { RATE_LIMIT_CHAT_PER_MINUTE: "0" } });
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

beforeAll(() => {
  process.on("warning", onWarning);
});
afterAll(async () => {
  process.off("warning", onWarning);
  AbortSignal.any = realAny;
});

describe("a server after hundreds of turns", () => {
  it("keeps no turn's abort signals, model calls or streams, and warns of no listener leak", { timeout: 240_000 }, async () => {
    const me = await visitor();
    const answers: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < TURNS) {
        const i = next++;
        const { response, text } = await chatTurn(chat, { message: { id: randomUUID(), content: `What is ${i} * 7?` } }, me.cookie);
        expect(response.status).toBe(200);
        // Answered from the tool's result, so every turn took the hand-over and the tool call.
        if (!text.includes(`= **${i * 7}**`)) answers.push(text);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(answers).toEqual([]);

    const counts = await reachability.settle();
    // Three model calls a turn: Triage's hand-over, Researcher's tool call, Researcher's answer.
    expect(counts["model call options"].watched).toBe(3 * TURNS);
    expect(counts["turn signal"].watched).toBeGreaterThanOrEqual(3 * TURNS);
    expect(counts).toEqual({
      "model call options": { watched: 3 * TURNS, alive: 0 },
      "model stream": { watched: 3 * TURNS, alive: 0 },
      "turn signal": { watched: counts["turn signal"].watched, alive: 0 },
    });
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  });
});

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createNetwork, type Agent } from "@/lib/agent/network/network";
import { defineTool } from "@/lib/agent/network/tools/types";
import { ActiveTurns } from "@/lib/runtime/active-turns";
import { InlineRuntime } from "@/lib/runtime/inline";
import { TurnStops } from "@/lib/runtime/turn-stops";
import { LIVE_STREAM_HEADERS, uiMessageStreamResponse } from "@/lib/http/ui-stream-response";
import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { MemoryHistory } from "../support/memory-history";

// The bytes a turn sends, from the model's stream to the chat response's
// body, recorded once and compared byte for byte ever after: whatever the
// token path becomes, the wire stays the same. The real provider code reads
// the mock model server over HTTP (a fresh server per case, so its call ids
// start again); the ids, the clock and the delta window are injected, so the
// same turn gives the same bytes on every run.
//
// UPDATE_GOLDEN=1 writes the files instead of comparing (review the diff!).

const GOLDEN_DIR = path.join(__dirname, "__golden__");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

/** Every delta out alone, as the provider gave it / a window that never closes: deltas of a part join until another chunk comes. */
const WINDOWS = { alone: 0, joined: 1_000_000 } as const;

const lookup = defineTool({
  name: "lookup",
  description: "Looks a key up.",
  input: z.object({ key: z.string() }),
  async execute({ key }) {
    return { key, value: `value of ${key}` };
  },
});

/** A lookup that changes something: every call asks for the user's approval first. */
const guardedLookup = defineTool({ ...lookup, name: "guarded_lookup", needsApproval: true });

let servers: MockModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  vi.restoreAllMocks();
});

async function mockModel(): Promise<LanguageModel> {
  const server = await startMockModelServer();
  servers.push(server);
  return createOpenAICompatible({ name: "openai-compatible", baseURL: server.url, includeUsage: true })("mock-model");
}

/** The bodies the model was sent: how the turn's requests are shaped stays as recorded too. */
function expectRequestsGolden(name: string) {
  expectGolden(`${name}.requests`, `${JSON.stringify(servers.flatMap((s) => s.requests), null, 2)}\n`, "json");
}

function counter(prefix: string) {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** A clock that moves 125 ms each time it is read. */
function steppingClock() {
  let t = 1_700_000_000_000;
  return () => (t += 125);
}

/** One turn through the inline runtime, answered as the chat route answers: the response's body, as text. */
async function turnBytes(
  model: LanguageModel,
  content: string,
  options: { window: number; agent?: Partial<Agent>; others?: Agent[]; onBytes?: (soFar: string, runtime: InlineRuntime) => void },
): Promise<string> {
  // A break-off is logged with the provider's words; the log is not the wire.
  vi.spyOn(console, "error").mockImplementation(() => {});
  const agent: Agent = { name: "Answerer", system: "Answer briefly.", ...options.agent };
  const network = createNetwork({ agents: [agent, ...(options.others ?? [])], model, modelIdleTimeoutMs: 5_000 });
  const history = new MemoryHistory();
  const active = new ActiveTurns();
  const runtime = new InlineRuntime(
    {
      history: () => history,
      network: () => network,
      sessionSecret: async () => "golden-secret-golden-secret-golden-secret",
      turnOptions: { generateId: counter("id"), now: steppingClock(), coalesceWindowMs: options.window },
    },
    active,
    new TurnStops(active, () => undefined),
  );
  const turn = await runtime.start({ owner: "owner-1", threadId: "11111111-1111-4111-8111-111111111111", message: { id: "msg-1", role: "user", content } });
  const response = uiMessageStreamResponse(turn.stream, { "X-Thread-Id": turn.threadId, "X-History-Source": turn.historySource!, ...LIVE_STREAM_HEADERS });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    options.onBytes?.(text, runtime);
  }
  return text + decoder.decode();
}

function expectGolden(name: string, bytes: string, ext = "sse") {
  const file = path.join(GOLDEN_DIR, `${name}.${ext}`);
  if (UPDATE) {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(file, bytes);
    return;
  }
  expect(existsSync(file), `${file} is missing: record it with UPDATE_GOLDEN=1`).toBe(true);
  expect(bytes).toBe(readFileSync(file, "utf8"));
}

describe("the bytes of a turn's stream stay as recorded", () => {
  for (const [mode, window] of Object.entries(WINDOWS)) {
    it(`text (${mode})`, async () => {
      expectGolden(`text-${mode}`, await turnBytes(await mockModel(), "hello golden stream", { window }));
      expectRequestsGolden(`text-${mode}`);
    });

    it(`reasoning, then text (${mode})`, async () => {
      expectGolden(`reasoning-${mode}`, await turnBytes(await mockModel(), "[[reason]] think first", { window }));
      expectRequestsGolden(`reasoning-${mode}`);
    });

    it(`tool calls: input deltas, a result, an input that does not fit, then the answer (${mode})`, async () => {
      const content = '[[call:lookup:{"key":"alpha"}]] [[call:lookup:{"nope":1}]]';
      expectGolden(`tools-${mode}`, await turnBytes(await mockModel(), content, { window, agent: { tools: [lookup], maxSteps: 2 } }));
      expectRequestsGolden(`tools-${mode}`);
    });

    it(`a tool call that waits for the user's approval (${mode})`, async () => {
      const content = '[[call:guarded_lookup:{"key":"alpha"}]]';
      expectGolden(`approval-${mode}`, await turnBytes(await mockModel(), content, { window, agent: { tools: [guardedLookup], maxSteps: 2 } }));
      expectRequestsGolden(`approval-${mode}`);
    });

    it(`a sub-agent's call: its parts inside it, its answer as the call's result, then the caller's (${mode})`, async () => {
      const content = `[[call:call_agent:${JSON.stringify({ agent: "Helper", task: '[[call:lookup:{"key":"alpha"}]]' })}]]`;
      const helper: Agent = { name: "Helper", system: "Look things up.", tools: [lookup], maxSteps: 2 };
      expectGolden(`sub-agent-${mode}`, await turnBytes(await mockModel(), content, { window, agent: { subAgents: ["Helper"], maxSteps: 2 }, others: [helper] }));
      expectRequestsGolden(`sub-agent-${mode}`);
    });

    it(`a stream cut inside a surrogate pair (${mode})`, async () => {
      expectGolden(`split-emoji-${mode}`, await turnBytes(await mockModel(), "[[split-emoji]] faces", { window }));
      expectRequestsGolden(`split-emoji-${mode}`);
    });

    it(`a connection dropped mid-answer (${mode})`, async () => {
      expectGolden(`fail-mid-${mode}`, await turnBytes(await mockModel(), "[[fail-mid]] go", { window }));
      expectRequestsGolden(`fail-mid-${mode}`);
    });

    it(`a chunk of the wrong shape mid-answer (${mode})`, async () => {
      expectGolden(`bad-chunk-mid-${mode}`, await turnBytes(await mockModel(), "[[bad-chunk-mid]] go", { window }));
      expectRequestsGolden(`bad-chunk-mid-${mode}`);
    });

    it(`Stop mid-answer (${mode})`, async () => {
      const model = stallingModel(["Three ", "words ", "then "], ["never ", "sent"]);
      let stopped = false;
      const bytes = await turnBytes(model, "stop me", {
        window,
        // Stop once the reply has started streaming: the model then waits for nothing but the abort.
        onBytes: (soFar, runtime) => {
          if (stopped || !soFar.includes('"type":"text-delta"')) return;
          stopped = true;
          void runtime.stop("owner-1", "11111111-1111-4111-8111-111111111111");
        },
      });
      expect(stopped).toBe(true);
      expectGolden(`stop-${mode}`, bytes);
    });
  }
});

/**
 * A model (the provider's stream parts) that streams `before`, then waits
 * until the call is aborted, as a fetch does, and never sends `after`.
 */
function stallingModel(before: string[], after: string[]): LanguageModel {
  return new MockLanguageModelV3({
    doStream: async ({ abortSignal }) => {
      const parts: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...before.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "t", delta })),
      ];
      let sent = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          if (sent < parts.length) return controller.enqueue(parts[sent++]);
          await new Promise<void>((resolve) => {
            if (abortSignal?.aborted) return resolve();
            abortSignal?.addEventListener("abort", () => resolve(), { once: true });
          });
          if (abortSignal?.aborted) return controller.error(abortSignal.reason);
          for (const delta of after) controller.enqueue({ type: "text-delta", id: "t", delta });
          controller.close();
        },
      });
      return { stream };
    },
  });
}

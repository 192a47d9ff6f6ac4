import type { UIMessageChunk } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createNetwork, followHandoffs, type Agent, type Router } from "@/lib/agent/network/network";
import { runTurn, type StepRunner } from "@/lib/agent/turn/turn";
import { defineTool } from "@/lib/agent/network/tools/types";
import { MAX_JSON_DEPTH } from "@threadline/history/json-depth";
import { partSchema, userMessage, type Part } from "@threadline/history/parts";
import { MemoryHistory } from "../support/memory-history";
import { defaultNetwork } from "@/lib/agent/network/default-network";
import { parseEnv } from "@/lib/settings";
import { scriptedCalls, scriptedModel } from "../support/scripted-model";

const message = { id: "m", role: "user" as const, content: "Plan a trip" };

function storedParts(history: MemoryHistory): Part[] {
  const append = history.calls.find((c) => c.hook === "appendResults");
  return (append?.args.reply as { parts: Part[] } | undefined)?.parts ?? [];
}

let executions = 0;
const weather = defineTool({
  name: "weather",
  description: "The weather in a city.",
  input: z.object({ city: z.string() }),
  async execute({ city }) {
    executions++;
    return { city, sky: "clear" };
  },
});
const broken = defineTool({
  name: "broken",
  description: "Always fails.",
  input: z.object({}),
  async execute() {
    throw new Error("the tool broke");
  },
});

async function run(agents: Agent[], model: Parameters<typeof createNetwork>[0]["model"], options: { router?: Router; maxIter?: number; step?: StepRunner } = {}) {
  const history = new MemoryHistory();
  const chunks: UIMessageChunk[] = [];
  const steps: string[] = [];
  const step: StepRunner =
    options.step ??
    ((id, work) => {
      steps.push(id);
      return work();
    });
  const outcome = await runTurn(
    { owner: "o", turnId: "t", message },
    {
      history,
      network: createNetwork({ model, agents, router: options.router, maxIter: options.maxIter }),
      publish: (chunk) => void chunks.push(chunk),
      step,
    },
  );
  return { outcome, history, chunks, steps, parts: storedParts(history) };
}

describe("the agent network", () => {
  it("lets the router chain agents, each seeing what the earlier ones wrote, and stores every part with its agent", async () => {
    const planner = scriptedModel(["Plan: ", "fly"]);
    const writer = scriptedModel(["Booked."]);
    const router: Router = ({ iteration, agents }) => agents[iteration];
    const { parts } = await run(
      [
        { name: "planner", system: "Plan." },
        { name: "writer", system: "Write.", model: writer.model },
      ],
      planner.model,
      { router },
    );
    expect(parts).toEqual([
      { type: "text", text: "Plan: fly", agentName: "planner" },
      { type: "text", text: "Booked.", agentName: "writer" },
    ]);
    expect(JSON.stringify(writer.prompts[0])).toContain("Plan: fly");
  });

  it("never runs more than maxIter agents, whatever the router says", async () => {
    const { model, prompts } = scriptedModel(["again"]);
    await run([{ name: "loop", system: "" }], model, { maxIter: 3, router: ({ agents }) => agents[0] });
    expect(prompts).toHaveLength(3);
  });

  it("follows a hand-over: the first agent is offered only hand_over, the next one its tools, and the hand-over is stored", async () => {
    const { model, tools } = scriptedCalls([
      { toolCalls: [{ toolName: "hand_over", input: { agent: "Expert", reason: "needs weather" } }] },
      { text: ["Sunny."] },
    ]);
    const { parts, chunks } = await run(
      [
        { name: "Triage", system: "Route.", handoffs: ["Expert"] },
        { name: "Expert", system: "Answer.", tools: [weather] },
      ],
      model,
    );
    expect(tools).toEqual([["hand_over"], ["weather"]]);
    expect(parts).toEqual([
      { type: "handoff", to: "Expert", reason: "needs weather", agentName: "Triage" },
      { type: "text", text: "Sunny.", agentName: "Expert" },
    ]);
    // The hand-over streams as a hand-over and each agent is named, not as a tool card.
    expect(chunks.filter((c) => c.type.startsWith("tool-"))).toEqual([]);
    expect(chunks.filter((c) => c.type === "data-agent").map((c) => (c as { data: unknown }).data)).toEqual([{ name: "Triage" }, { name: "Expert" }]);
  });

  it("an agent that answers ends the turn under code routing", () => {
    const agents: Agent[] = [{ name: "A", system: "" }, { name: "B", system: "" }];
    expect(followHandoffs({ iteration: 0, runs: [], agents })?.name).toBe("A");
    expect(followHandoffs({ iteration: 1, runs: [{ agentName: "A", parts: [] }], agents })).toBeUndefined();
    expect(followHandoffs({ iteration: 1, runs: [{ agentName: "A", parts: [], handoff: { type: "handoff", to: "B" } }], agents })?.name).toBe("B");
  });

  it("refuses a network whose agent hands over to an agent it does not have", () => {
    expect(() => createNetwork({ model: scriptedModel([]).model, agents: [{ name: "A", system: "", handoffs: ["Nobody"] }] })).toThrow(/Nobody/);
  });

  it("runs each tool call as a step of its own, gives the model the results, and stores every part in order", async () => {
    const { model, prompts } = scriptedCalls([
      { reasoning: "Two tools.", toolCalls: [{ toolName: "weather", input: { city: "Oslo" } }, { toolName: "broken", input: {} }] },
      { text: ["Oslo is clear."] },
    ]);
    const { parts, steps, outcome } = await run([{ name: "Expert", system: "", tools: [weather, broken], maxSteps: 3 }], model);
    expect(outcome.status).toBe("complete");
    expect(steps.filter((s) => s.startsWith("model:") || s.startsWith("tool:"))).toEqual([
      "model:0:Expert:0",
      "tool:0:Expert:0:0",
      "tool:0:Expert:0:1",
      "model:0:Expert:1",
    ]);
    expect(parts.map((p) => p.type)).toEqual(["reasoning", "tool-call", "tool-call", "tool-result", "tool-result", "text"]);
    const [, callA, callB, resultA, resultB] = parts as Extract<Part, { toolCallId: string }>[];
    expect(resultA).toMatchObject({ toolCallId: callA.toolCallId, output: { city: "Oslo", sky: "clear" } });
    // A tool that throws becomes an error the model reads; the turn goes on.
    expect(resultB).toMatchObject({ toolCallId: callB.toolCallId, error: "the tool broke" });
    const second = JSON.stringify(prompts[1]);
    expect(second).toContain('"sky":"clear"');
    expect(second).toContain("the tool broke");
  });

  it("answers a call with an input that does not fit, or an unknown tool, with an error result", async () => {
    const { model } = scriptedCalls([
      { toolCalls: [{ toolName: "weather", input: { town: 3 } }, { toolName: "teleport", input: {} }] },
      { text: ["Sorry."] },
    ]);
    const { parts } = await run([{ name: "Expert", system: "", tools: [weather], maxSteps: 2 }], model);
    const errors = parts.flatMap((p) => (p.type === "tool-result" ? [p.error] : []));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/weather/);
    expect(errors[1]).toMatch(/no tool named "teleport"/);
    expect(parts.at(-1)).toMatchObject({ type: "text", text: "Sorry." });
  });

  it(`answers a call whose input nests more than ${MAX_JSON_DEPTH} deep with an error result, keeping the input as the model's text; and a too-deep output too`, async () => {
    let echoed = 0;
    const echo = defineTool({
      name: "echo",
      description: "Gives back what it is given, as deep again when asked.",
      input: z.object({ value: z.unknown(), deeper: z.number().optional() }),
      async execute({ value, deeper = 0 }) {
        echoed++;
        return { value: nest(value, deeper) } as never;
      },
    });
    const nest = (value: unknown, depth: number): unknown => (depth === 0 ? value : [nest(value, depth - 1)]);
    const { model, prompts } = scriptedCalls([
      {
        toolCalls: [
          { toolName: "echo", input: { value: nest(1, MAX_JSON_DEPTH - 1) } },
          { toolName: "echo", input: { value: nest(1, MAX_JSON_DEPTH) } },
          { toolName: "echo", input: { value: 1, deeper: MAX_JSON_DEPTH } },
        ],
      },
      { text: ["Done."] },
    ]);
    const { parts } = await run([{ name: "Expert", system: "", tools: [echo], maxSteps: 2 }], model);
    const [fits, tooDeep, deepOutput] = parts.filter((p) => p.type === "tool-call");
    const results = parts.filter((p) => p.type === "tool-result");
    // The first runs: its input is exactly as deep as a part may hold.
    expect(results[0]).toMatchObject({ toolCallId: fits.toolCallId, output: { value: nest(1, MAX_JSON_DEPTH - 1) } });
    // The second never runs; the model reads why; its input is stored as the text the model sent, not as JSON.
    expect(echoed).toBe(2);
    expect(tooDeep.input).toBe(JSON.stringify({ value: nest(1, MAX_JSON_DEPTH) }));
    expect(results[1]).toMatchObject({ toolCallId: tooDeep.toolCallId, error: expect.stringContaining(`more than ${MAX_JSON_DEPTH} deep`) });
    // The third ran, but what it gave back is too deep to keep.
    expect(results[2]).toMatchObject({ toolCallId: deepOutput.toolCallId, error: expect.stringContaining(`output nests objects and arrays more than ${MAX_JSON_DEPTH} deep`) });
    expect(JSON.stringify(prompts[1])).toContain(`more than ${MAX_JSON_DEPTH} deep`);
    expect(parts.at(-1)).toMatchObject({ type: "text", text: "Done." });
    // Every part the turn stored is one a client's copy or a file may carry.
    for (const part of parts) expect(partSchema.safeParse(part).success).toBe(true);
  });

  it("never runs a finished tool again when a durable runtime replays the turn", async () => {
    const memo = new Map<string, unknown>();
    const replaying: StepRunner = async <T,>(id: string, work: () => Promise<T>) => {
      if (!memo.has(id)) memo.set(id, await work());
      return memo.get(id) as T;
    };
    const script = () =>
      scriptedCalls([{ toolCalls: [{ toolCallId: "c1", toolName: "weather", input: { city: "Rome" } }] }, { text: ["Done."] }]).model;
    executions = 0;
    const agents: Agent[] = [{ name: "Expert", system: "", tools: [weather], maxSteps: 2 }];
    const first = await run(agents, script(), { step: replaying });
    const replay = await run(agents, script(), { step: replaying });
    expect(executions).toBe(1);
    expect(first.parts.map((p) => p.type)).toEqual(["tool-call", "tool-result", "text"]);
    expect(replay.outcome.reply).toEqual(first.outcome.reply);
  });
});

describe("the development console", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("gets one line per agent that runs, with its setting and what it trimmed, once however often the turn is replayed", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "info").mockImplementation((line: string) => void lines.push(line));
    const history = new MemoryHistory();
    const threadId = "11111111-1111-4111-8111-111111111111";
    const stored = (id: string, role: "user" | "assistant", seq: number) => ({
      ...(role === "user" ? userMessage(id, id) : { id, role, parts: [{ type: "text" as const, text: id }] }),
      seq,
      createdAt: "2026-01-01T00:00:00Z",
      status: "complete" as const,
    });
    history.seed("o", threadId, [stored("u1", "user", 1), stored("a1", "assistant", 2), stored("u2", "user", 3), stored("a2", "assistant", 4)]);
    const memo = new Map<string, unknown>();
    const replaying: StepRunner = async <T,>(id: string, work: () => Promise<T>) => {
      if (!memo.has(id)) memo.set(id, await work());
      return memo.get(id) as T;
    };
    const network = () =>
      createNetwork({
        model: scriptedCalls([{ toolCalls: [{ toolName: "hand_over", input: { agent: "Expert" } }] }, { text: ["Sunny."] }]).model,
        agents: [
          { name: "Triage", system: "", handoffs: ["Expert"], history: { policy: "lastN", length: 1 } },
          { name: "Expert", system: "" },
        ],
        // As the app's network has it in development (lib/agent/turn/history-log.ts).
        logHistory: true,
      });
    for (let run = 0; run < 2; run++) {
      await runTurn({ owner: "o", turnId: "t", threadId, message }, { history, network: network(), publish: () => {}, step: replaying });
    }
    expect(lines).toEqual([
      "[history] Triage: policy lastN, length 1, source default: from 5 to 1 messages",
      "[history] Expert: policy all, length 10, source default: from 5 to 5 messages",
    ]);
  });

  it("is the app's network's in development only: quiet in production and under the test runner", () => {
    const search = async () => [];
    const networkIn = (NODE_ENV: string) => defaultNetwork(parseEnv({ NODE_ENV }), { model: scriptedModel(["Hi."]).model }, search);
    expect(networkIn("development").logHistory).toBe(true);
    expect(networkIn("production").logHistory).toBe(false);
    expect(networkIn("test").logHistory).toBe(false);
  });
});

import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createNetwork, type Agent } from "@/lib/agent/network/network";
import { asksApproval, defineTool, type ToolApprovalMode } from "@/lib/agent/network/tools/types";
import { runTurn } from "@/lib/agent/turn/turn";
import { approvalIdFor } from "@/lib/agent/turn/lifecycle";
import { partSchema, type Part } from "@threadline/history/parts";
import { MemoryHistory } from "../support/memory-history";
import { scriptedCalls } from "../support/scripted-model";

// A tool that changes something asks first: the turn stores the call as
// waiting for the user's approval, tells the page in the AI SDK's own terms,
// and ends without running it.

const OWNER = "owner-a";
const message = { id: "m-1", role: "user" as const, content: "Remind me to stretch at nine" };

function reminders() {
  const executed: unknown[] = [];
  const tool = defineTool({
    name: "schedule_reminder",
    description: "Schedules a reminder.",
    input: z.object({ at: z.string(), text: z.string() }),
    needsApproval: true,
    async execute(input) {
      executed.push(input);
      return { scheduled: true };
    },
  });
  return { tool, executed };
}

const reader = defineTool({
  name: "read_clock",
  description: "Reads the clock.",
  input: z.object({}),
  async execute() {
    return { now: "09:00" };
  },
});

/** Only asks for amounts over 100. */
const payments = defineTool({
  name: "pay",
  description: "Pays an amount.",
  input: z.object({ amount: z.number() }),
  needsApproval: ({ amount }) => amount > 100,
  async execute({ amount }) {
    return { paid: amount };
  },
});

async function turn(agent: Agent, calls: { toolName: string; input: unknown }[], toolApproval?: ToolApprovalMode) {
  const history = new MemoryHistory();
  const chunks: UIMessageChunk[] = [];
  const { model, prompts } = scriptedCalls([{ toolCalls: calls }, { text: ["Done."] }]);
  const outcome = await runTurn(
    { owner: OWNER, turnId: "turn-1", message },
    { history, network: createNetwork({ model, agents: [agent], toolApproval }), publish: (c) => void chunks.push(c) },
  );
  const stored = (await history.get({ owner: OWNER, threadId: outcome.threadId })).at(-1)!;
  return { outcome, chunks, stored, prompts };
}

const agent = (...tools: ReturnType<typeof defineTool>[]): Agent => ({ name: "Assistant", system: "Help.", tools, maxSteps: 3 });

describe("a tool call that asks for the user's approval", () => {
  it("is stored waiting, with its approval's id, and never run; the reply ends there", async () => {
    const { tool, executed } = reminders();
    const input = { at: "09:00", text: "stretch" };
    const { outcome, chunks, stored, prompts } = await turn(agent(tool), [{ toolName: "schedule_reminder", input }]);
    expect(executed).toEqual([]);
    // No second model call: the agent waits for the decision.
    expect(prompts).toHaveLength(1);
    expect(outcome.status).toBe("waiting");
    expect(stored.status).toBe("waiting");
    const call = stored.parts.find((p): p is Extract<Part, { type: "tool-call" }> => p.type === "tool-call")!;
    expect(call.approval).toEqual({ id: approvalIdFor(stored.id, call.toolCallId) });
    expect(partSchema.safeParse(call).success).toBe(true);
    expect(stored.parts.some((p) => p.type === "tool-result")).toBe(false);

    const types = chunks.map((c) => c.type);
    expect(types.indexOf("tool-approval-request")).toBeGreaterThan(types.indexOf("tool-input-available"));
    expect(chunks.find((c) => c.type === "tool-approval-request")).toEqual({ type: "tool-approval-request", approvalId: call.approval!.id, toolCallId: call.toolCallId });
    expect(chunks.filter((c) => c.type === "tool-output-available" || c.type === "tool-output-error")).toEqual([]);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
  });

  it("lets the calls beside it that do not ask run at once", async () => {
    const { tool, executed } = reminders();
    const { stored } = await turn(agent(tool, reader), [
      { toolName: "read_clock", input: {} },
      { toolName: "schedule_reminder", input: { at: "09:00", text: "stretch" } },
    ]);
    expect(executed).toEqual([]);
    expect(stored.parts.filter((p) => p.type === "tool-result").map((p) => (p as { toolName: string }).toolName)).toEqual(["read_clock"]);
    expect(stored.status).toBe("waiting");
  });

  it("asks as the tool's input says", async () => {
    const small = await turn(agent(payments), [{ toolName: "pay", input: { amount: 20 } }]);
    expect(small.outcome.status).toBe("complete");
    expect(small.stored.parts).toContainEqual(expect.objectContaining({ type: "tool-result", output: { paid: 20 } }));
    const large = await turn(agent(payments), [{ toolName: "pay", input: { amount: 500 } }]);
    expect(large.outcome.status).toBe("waiting");
  });

  it("does not ask for a call whose input does not fit: the model reads the error at once", async () => {
    const { tool } = reminders();
    const { outcome, stored } = await turn(agent(tool), [{ toolName: "schedule_reminder", input: { at: 9 } }]);
    expect(outcome.status).toBe("complete");
    expect(stored.parts).toContainEqual(expect.objectContaining({ type: "tool-result", error: expect.stringContaining("does not fit") }));
  });

  it("follows the operator's setting: every call asks under all, none under none", async () => {
    expect((await turn(agent(reader), [{ toolName: "read_clock", input: {} }], "all")).outcome.status).toBe("waiting");
    const { tool, executed } = reminders();
    expect((await turn(agent(tool), [{ toolName: "schedule_reminder", input: { at: "09:00", text: "x" } }], "none")).outcome.status).toBe("complete");
    expect(executed).toHaveLength(1);
  });

  it("is decided by asksApproval from the tool and the mode", () => {
    const { tool } = reminders();
    expect(asksApproval(tool, {})).toBe(true);
    expect(asksApproval(reader, {})).toBe(false);
    expect(asksApproval(payments, { amount: 101 })).toBe(true);
    expect(asksApproval(payments, { amount: 100 })).toBe(false);
    expect(asksApproval(reader, {}, "all")).toBe(true);
    expect(asksApproval(tool, {}, "none")).toBe(false);
  });
});

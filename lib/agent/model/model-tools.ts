import { tool, zodSchema, type ToolSet } from "ai";
import { z } from "zod";
import { CALL_AGENT_TOOL, HANDOFF_TOOL } from "@/lib/model/handoff-tool";
import type { Agent } from "../network/network";

const handoffInputs = new WeakMap<Agent, ReturnType<typeof buildHandoffInput>>();

/** What the hand-over tool takes: one of the agent's hand-over targets, and why. Built once per agent. */
export function handoffInput(agent: Agent) {
  let schema = handoffInputs.get(agent);
  if (!schema) handoffInputs.set(agent, (schema = buildHandoffInput(agent)));
  return schema;
}

function buildHandoffInput(agent: Agent) {
  return z.object({
    agent: z.enum(agent.handoffs as [string, ...string[]]).describe("The agent to hand over to"),
    reason: z.string().max(500).optional().describe("Why, in a few words"),
  });
}

const callAgentInputs = new WeakMap<Agent, ReturnType<typeof buildCallAgentInput>>();

/** What the call_agent tool takes: one of the agent's sub-agents, and the task. Built once per agent. */
export function callAgentInput(agent: Agent) {
  let schema = callAgentInputs.get(agent);
  if (!schema) callAgentInputs.set(agent, (schema = buildCallAgentInput(agent)));
  return schema;
}

function buildCallAgentInput(agent: Agent) {
  return z.object({
    agent: z.enum(agent.subAgents as [string, ...string[]]).describe("The agent to call"),
    task: z.string().min(1).max(4_000).describe("What it should find out or do, in full: it sees nothing else of the conversation"),
  });
}

const toolSets = new WeakMap<Agent, { tools: ToolSet | undefined }>();

/**
 * The agent's tools as the model sees them: schemas only. Execution is the
 * turn's business, one step per call. Built once per agent, each schema
 * wrapped once: the wrapper keeps the JSON Schema it converts to, so the zod
 * conversion (the costliest part of a model call's setup) runs once per
 * process, not on every call. An agent is not changed once its network is
 * built (lib/app.ts builds a new network when the configuration changes).
 */
export function modelTools(agent: Agent): ToolSet | undefined {
  let built = toolSets.get(agent);
  if (!built) toolSets.set(agent, (built = { tools: buildModelTools(agent) }));
  return built.tools;
}

function buildModelTools(agent: Agent): ToolSet | undefined {
  const tools: ToolSet = {};
  for (const t of agent.tools ?? []) tools[t.name] = tool({ description: t.description, inputSchema: zodSchema(t.input) });
  if (agent.handoffs?.length) {
    tools[HANDOFF_TOOL] = tool({
      description: `Hands the conversation to another agent, who then answers the user: ${agent.handoffs.join(", ")}.`,
      inputSchema: zodSchema(handoffInput(agent)),
    });
  }
  if (agent.subAgents?.length) {
    tools[CALL_AGENT_TOOL] = tool({
      description: `Calls another agent with a task; it works with its own tools and returns its answer to you, and you go on: ${agent.subAgents.join(", ")}.`,
      inputSchema: zodSchema(callAgentInput(agent)),
    });
  }
  return Object.keys(tools).length > 0 ? tools : undefined;
}

/** Why a call the model made cannot run, in words the model reads in the call's result. */
export function describeInvalidCall(toolName: string, error: unknown, agent: Agent): string {
  const known = [
    ...(agent.tools ?? []).map((t) => t.name),
    ...(agent.handoffs?.length ? [HANDOFF_TOOL] : []),
    ...(agent.subAgents?.length ? [CALL_AGENT_TOOL] : []),
  ];
  if (!known.includes(toolName)) return `There is no tool named "${toolName}". The tools are: ${known.join(", ") || "none"}.`;
  return `The input does not fit ${toolName}: ${error instanceof Error ? error.message : String(error)}`;
}

import type { LanguageModel } from "ai";
import type { FileInput } from "@/lib/protocol/parts-codec";
import { resolveHistoryPolicy, type HistoryPolicy, type ResolvedHistoryPolicy } from "@/lib/protocol/history-policy";
import type { FilePart, HandoffPart, Part } from "@threadline/history/parts";
import type { CompactionSettings } from "@/lib/agent/compaction-settings";
import type { AgentTool, ToolApprovalMode } from "./tools/types";
import type { StepRunner } from "../turn/steps";
import type { SpendGate } from "../model/spend";
import type { TurnMemory } from "../model/turn-memory";

export interface Agent {
  /** Shown on the messages it writes; letters, digits, spaces, '-' and '_'. */
  name: string;
  /** What it is for: the agents that may hand over to it read this. */
  description?: string;
  system: string;
  /** Falls back to the network's model. */
  model?: LanguageModel;
  tools?: AgentTool[];
  /** The agents it may hand the conversation to (by name), through its hand_over tool. */
  handoffs?: string[];
  /** The agents it may call as sub-agents (by name), through its call_agent tool: each returns its answer, and this agent goes on. */
  subAgents?: string[];
  /** Model calls it may make in one run: each tool round trip takes one. */
  maxSteps?: number;
  /** How much of the thread it reads, unless the operator or the page's URL says otherwise. */
  history?: HistoryPolicy;
}

/** What one agent did in a run. */
export interface AgentRun {
  agentName: string;
  parts: Part[];
  /** Set when the agent handed over: the router follows it. */
  handoff?: HandoffPart;
}

export interface RouterState {
  iteration: number;
  /** The agents' runs so far in this turn, in order. */
  runs: AgentRun[];
  agents: Agent[];
}

/** Picks the next agent, or undefined to end the turn. */
export type Router = (state: RouterState) => Agent | undefined;

export interface Network {
  agents: Agent[];
  router: Router;
  /** The most agent runs one turn may take, whatever the router says. */
  maxIter: number;
  /** The most characters of conversation one model call may be given (history and message); over it, no call is made. */
  maxInputChars?: number;
  model: LanguageModel;
  /** The id (`provider:model`) a reply records of `model`; unset: replies record none. */
  modelId?: string;
  /** The models a turn may ask for by id (the ones on offer); `model` answers a turn that names none or one not here. */
  models?: ReadonlyMap<string, LanguageModel>;
  /** What titles and summaries are asked of; unset: `model`, the one answering the thread. */
  utilityModel?: LanguageModel;
  /** Its id (`provider:model`), which their usage records. */
  utilityModelId?: string;
  /**
   * What the model answering with `modelId` is given for the owner's files
   * attached to the thread's messages (their stored contents, read outside
   * any step: bytes never become a step's output); unset, each file is named
   * by a line only.
   */
  fileInput?: (owner: string, files: FilePart[], modelId: string | undefined) => Promise<FileInput>;
  /** The AI SDK's own retries of a failed model call; a durable runtime retries the whole step instead. */
  maxRetries?: number;
  /** The most one answer's model call may write (MAX_OUTPUT_TOKENS); a budget may allow less. Unset: the provider's limit. */
  maxOutputTokens?: number;
  /** Where each model call is reserved before it is made and settled after (the budgets wing); unset: calls are neither counted nor limited. */
  spend?: SpendGate;
  /** The person's memories the turn gives the model, and the record of which each reply was given (the memory wing); unset: none. */
  memory?: TurnMemory;
  /** The operator's history setting (environment): it overrides the URL's and the agents' defaults. */
  historyPolicy?: Partial<HistoryPolicy>;
  /** When a long thread's earlier messages are summarized; undefined: never. */
  compaction?: CompactionSettings;
  /** A model stream silent this long mid-answer is ended (what it wrote is kept); undefined: no limit. */
  modelIdleTimeoutMs?: number;
  /** The most a turn may take; past it the turn ends and what was written is kept. Undefined: no limit. */
  turnTimeoutMs?: number;
  /** The most times one message's reply may go on after the user's decisions; the last may ask no more. Undefined: no limit. */
  maxToolRounds?: number;
  /** How long the model may take to title a thread after its first reply (lib/agent/title.ts); undefined or 0: no titles by the model. */
  titleTimeoutMs?: number;
  /** Each agent's history trim goes to the console (lib/agent/turn/history-log.ts). */
  logHistory?: boolean;
  /** Which tool calls wait for the user's approval (TOOL_APPROVAL); unset: as each tool declares. */
  toolApproval?: ToolApprovalMode;
  /** Tools listed anew before each turn (the MCP servers'), given to `agent`; a source that lists none adds none. */
  dynamicTools?: DynamicTools;
}

/** Where a turn's listed tools come from (the operator's MCP servers). */
export interface DynamicTools {
  /** The agent given them. */
  agent: string;
  /** The tools for this turn, listed inside `step` (a durable run keeps the list, so its replays agree). */
  tools: (step?: StepRunner) => Promise<AgentTool[]>;
  /**
   * The tool an approved call names that this turn's list lacks; undefined
   * when the source has no such tool. Throws ToolUnavailableError when the
   * tool's service cannot be reached now, so the call is tried again later.
   */
  unlisted?: (name: string) => Promise<AgentTool | undefined>;
}

/**
 * The history setting `agent`'s model calls use, given what the page's URL
 * asked for: the one rule both a turn and the chat page's debug panel (which
 * shows it before anything is sent) apply.
 */
export function agentHistoryPolicy(network: Pick<Network, "historyPolicy">, agent: Agent, url?: Partial<HistoryPolicy>): ResolvedHistoryPolicy {
  return resolveHistoryPolicy({ environment: network.historyPolicy, url, agentDefault: agent.history });
}

/**
 * The network as it answers with the model `modelId` names, when it offers
 * it; otherwise as it is (its default model). What a reply records as the
 * model that wrote it is the one that did.
 */
export function withModel(network: Network, modelId: string | undefined): Network {
  const model = modelId === undefined ? undefined : network.models?.get(modelId);
  return model && modelId !== network.modelId ? { ...network, model, modelId } : network;
}

// The network's agents grown with one list of dynamic tools, per list: the
// source hands out the same array while its tools stay the same, so the
// agents (and the tool schemas built once per agent) are built once per list.
const grownAgents = new WeakMap<AgentTool[], Map<Agent, Agent>>();

/**
 * The network as this turn runs it: the agent `dynamicTools` names with the
 * tools listed now, and the agents that hand over to it or call it told
 * what they are. Unchanged when nothing is listed.
 */
export async function withDynamicTools(network: Network, step?: StepRunner): Promise<Network> {
  const source = network.dynamicTools;
  if (!source) return network;
  const tools = await source.tools(step);
  if (tools.length === 0) return network;
  let grown = grownAgents.get(tools);
  if (!grown) grownAgents.set(tools, (grown = new Map()));
  const names = tools.map((tool) => tool.name).join(", ");
  const agents = network.agents.map((agent) => {
    const owner = agent.name === source.agent;
    const caller = agent.handoffs?.includes(source.agent) || agent.subAgents?.includes(source.agent);
    if (!owner && !caller) return agent;
    let built = grown.get(agent);
    if (!built) {
      built = owner
        ? { ...agent, tools: [...(agent.tools ?? []), ...tools], system: `${agent.system}\n\nYou also have these tools of the operator's MCP servers: ${names}.` }
        : { ...agent, system: `${agent.system}\n\n${source.agent} also has these tools of the operator's MCP servers: ${names}; a question that needs one goes to ${source.agent}.` };
      grown.set(agent, built);
    }
    return built;
  });
  return { ...network, agents };
}

/** The model titles and summaries are asked of. */
export const utilityModelOf = (network: Pick<Network, "model" | "utilityModel">): LanguageModel => network.utilityModel ?? network.model;
/** Its id, as their usage records it. */
export const utilityModelIdOf = (network: Pick<Network, "modelId" | "utilityModel" | "utilityModelId">): string =>
  (network.utilityModel ? network.utilityModelId : network.modelId) ?? "unknown";

/**
 * Code routing: the first agent takes every turn, and an agent that hands
 * over passes the turn to the agent it named. An agent that answers ends it.
 */
export const followHandoffs: Router = ({ iteration, runs, agents }) => {
  if (iteration === 0) return agents[0];
  const to = runs.at(-1)?.handoff?.to;
  return to === undefined ? undefined : agents.find((agent) => agent.name === to);
};

export function createNetwork(
  options: Omit<Network, "router" | "maxIter" | "maxRetries"> & Partial<Pick<Network, "router" | "maxIter">>,
): Network {
  if (options.agents.length === 0) throw new Error("A network needs at least one agent.");
  const names = new Set(options.agents.map((agent) => agent.name));
  if (names.size !== options.agents.length) throw new Error("Agent names must be unique.");
  for (const agent of options.agents) {
    for (const target of agent.handoffs ?? []) {
      if (!names.has(target)) throw new Error(`Agent "${agent.name}" hands over to "${target}", which is not in the network.`);
    }
    for (const target of agent.subAgents ?? []) {
      if (!names.has(target)) throw new Error(`Agent "${agent.name}" calls "${target}", which is not in the network.`);
      if (target === agent.name) throw new Error(`Agent "${agent.name}" cannot call itself as a sub-agent.`);
    }
  }
  return { ...options, router: options.router ?? followHandoffs, maxIter: options.maxIter ?? 4 };
}

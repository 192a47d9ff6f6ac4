import "server-only";
import { randomUUID } from "node:crypto";
import type { ModelMessage } from "ai";
import { toModelMessages } from "@/lib/protocol/parts-codec";
import { summaryForModel } from "@threadline/history/summary-for-model";
import type { Part, ToolCallPart, ToolResultPart } from "@threadline/history/parts";
import { CALL_AGENT_TOOL } from "@/lib/model/handoff-tool";
import { callAgentInput } from "../model/model-tools";
import { historyTrimLine, type AgentHistoryTrim } from "../turn/history-log";
import { callModel, ModelCallError, type ModelCallResult } from "../model/model-call";
import type { PendingToolCall } from "../model/model-stream-reducer";
import type { Agent, AgentRun, Network } from "./network";
import { ChunkWriter, type InsideCall, type Publish } from "../turn/stream-chunks";
import { runTool } from "./tools/run-tool";
import { asksApproval, type ToolContext } from "./tools/types";
import type { StepRunner } from "../turn/steps";
import type { ModelUsage } from "@threadline/history/usage";
import type { NoticePart } from "@threadline/history/parts";
import { modelTools } from "../model/model-tools";
import { DEFAULT_OUTPUT_CAP, estimatedSpend, inputTokensOf, LEAST_ANSWER_TOKENS, reservedCall, type CallToReserve } from "../model/spend";

export interface NetworkOutcome {
  /** Every part the agents produced, in order: the reply. */
  parts: Part[];
  stopped: boolean;
  /** A tool call of the reply waits for the user's approval (its call part says which): the turn ends there, and goes on once they decide. */
  waiting?: boolean;
  /** The model's stream broke off after writing `parts`: why, for the user. The turn ends there. */
  failure?: string;
}

export interface RunNetworkArgs {
  network: Network;
  /** The history and the user's message, as each agent reads them (its history policy applied). */
  messagesFor: (agent: Agent) => ModelMessage[];
  /** What each agent's history policy made of the thread: a console line in development when the agent starts. */
  historyTrim?: (agent: Agent) => Omit<AgentHistoryTrim, "agent">;
  context: ToolContext;
  publish: Publish;
  step: StepRunner;
  newId: () => string;
  /** The id of the approval a call of this reply asks for (a uuid, the same however often the turn is replayed). */
  approvalIdFor: (toolCallId: string) => string;
  /**
   * Set when the reply has asked as often as one message may (MAX_TOOL_ROUNDS):
   * a call that would ask first is not asked nor run; its result is this error,
   * which the model reads and answers from.
   */
  mayNotAsk?: string;
  /**
   * Goes on with a reply that waited for the user's approval: `agent` (the
   * one whose call asked) goes on from `parts`, the reply so far with the
   * decided calls' results; then the router, as after any run. Its step
   * runner keeps its step ids apart from those of the turn that asked.
   */
  resume?: {
    agent: Agent;
    parts: Part[];
    /** The sub-agent call (the agent's call_agent call) a decided call ran inside: it goes on first, then the agent. */
    subAgentCall?: ToolCallPart;
  };
  /** The clock reasoning is timed by; Date.now unless given. */
  now?: () => number;
  /**
   * The runtime retries a failed step (durable): a model call that breaks off
   * fails its step, and the retry writes the whole answer. Otherwise what it
   * wrote before breaking off is kept, and the turn ends with it.
   */
  retriesSteps?: boolean;
  /** Where each model call's usage goes as its step returns (a replayed step's memoized usage, once). */
  usage?: ModelUsage[];
}

/**
 * The agent loop of one turn. The router picks an agent; the agent calls the
 * model, then each tool it asked for, then the model again with the results,
 * until it answers, hands over, or runs out of steps; then the router picks
 * again, at most `maxIter` times. Every model call and every tool execution
 * is a step of its own with a stable id, so a durable runtime never repeats
 * a finished one; each step streams what it produces while it runs.
 */
export async function runNetwork(args: RunNetworkArgs): Promise<NetworkOutcome> {
  const { network, resume } = args;
  const parts: Part[] = [...(resume?.parts ?? [])];
  const runs: AgentRun[] = [];
  let first = 0;
  if (resume) {
    const run: AgentRun = { agentName: resume.agent.name, parts: [] };
    runs.push(run);
    if (resume.subAgentCall) {
      const call = resume.subAgentCall;
      const sub = await subAgentStep(args, resume.agent, call, outerOf(call), parts.filter((p) => "parentCallId" in p && p.parentCallId === call.toolCallId), parts);
      parts.push(...sub.parts);
      run.parts.push(...sub.parts);
      if (sub.ended) return { ...sub.ended, parts };
    }
    const ended = await runAgent(args, { agent: resume.agent, iteration: 0, run, parts, resumed: true });
    if (ended) return ended;
    first = 1;
  }
  for (let iteration = first; iteration < network.maxIter; iteration++) {
    const agent = network.router({ iteration, runs, agents: network.agents });
    if (!agent) break;
    const run: AgentRun = { agentName: agent.name, parts: [] };
    runs.push(run);
    const ended = await runAgent(args, { agent, iteration, run, parts });
    if (ended) return ended;
  }
  return { parts, stopped: false };
}

/**
 * One agent's run: a model call, each tool it asked for, and again, until it
 * answers, hands over or runs out of steps. What it produces goes on `run`
 * and on the turn's `parts`; the outcome when it ends the turn (Stop, or a
 * model that broke off), else undefined: the router picks next.
 */
async function runAgent(
  args: RunNetworkArgs,
  { agent, iteration, run, parts, resumed = false }: { agent: Agent; iteration: number; run: AgentRun; parts: Part[]; resumed?: boolean },
): Promise<NetworkOutcome | undefined> {
  const add = (...produced: Part[]) => {
    parts.push(...produced);
    run.parts.push(...produced);
  };
  for (let call = 0; call < (agent.maxSteps ?? 1); call++) {
    const out = await modelStep(args, { agent, iteration, call, replySoFar: parts, takenCallIds: callIdsOf(parts), announce: call === 0 && !resumed });
    add(...out.parts);
    if (out.refused) return { parts, stopped: false };
    if (out.stopped) return { parts, stopped: true };
    if (out.failure !== undefined) return { parts, stopped: false, failure: out.failure };
    let waiting = false;
    for (const [index, pending] of out.toolCalls.entries()) {
      const stepId = `tool:${iteration}:${agent.name}:${call}:${index}`;
      if (callsSubAgent(agent, pending)) {
        const sub = await subAgentStep(args, agent, pending.call, undefined, [], parts);
        add(...sub.parts);
        if (sub.ended?.waiting) waiting = true;
        else if (sub.ended) return { ...sub.ended, parts };
        continue;
      }
      if (asksFirst(args.network, agent, pending)) {
        if (args.mayNotAsk !== undefined) {
          add(await notAskedStep(args, stepId, pending));
          continue;
        }
        // The call part gets its approval's id: stored with the reply, it is what the user's decision names.
        const asked: Part = { ...pending.call, approval: { id: await approvalStep(args, stepId, pending) } };
        for (const list of [parts, run.parts]) list[list.findIndex((part) => part.type === "tool-call" && part.toolCallId === asked.toolCallId)] = asked;
        waiting = true;
        continue;
      }
      add(await toolStep(args, agent, stepId, pending));
    }
    if (args.context.signal?.aborted) return { parts, stopped: true };
    if (waiting) return { parts, stopped: false, waiting: true };
    if (out.handoff) {
      add(out.handoff);
      run.handoff = out.handoff;
      return undefined;
    }
    if (out.toolCalls.length === 0) return undefined;
  }
  return undefined;
}

/** One model call as a step: it reads the history and the reply so far, and streams what the model writes. */
function modelStep(
  args: RunNetworkArgs,
  {
    agent,
    iteration,
    call,
    replySoFar,
    takenCallIds,
    announce,
    within,
  }: {
    agent: Agent;
    iteration: number;
    call: number;
    replySoFar: Part[];
    /** The ids of every tool call of the whole reply so far, a sub-agent's too: the model's new calls take others. */
    takenCallIds: ReadonlySet<string>;
    announce: boolean;
    /** A sub-agent's call: it reads its task instead of the thread, and what it wrote so far; its parts are tagged with the call. */
    within?: { inside: InsideCall; task: string; stepId: string };
  },
): Promise<ModelStepResult> {
  const { network, context } = args;
  const stepId = within?.stepId ?? `model:${iteration}:${agent.name}:${call}`;
  const writer = new ChunkWriter(args.publish, stepId, within?.inside);
  const earlier: ModelMessage[] = within ? [{ role: "user", content: within.task }] : args.messagesFor(agent);
  // Its own parts as plain parts (what runs inside calls of its own stays out of its view).
  const sofar = within ? replySoFar.map((p) => (isInside(p, within.inside.parentCallId) ? plain(p) : p)) : replySoFar;
  return args.step(
    stepId,
    async (): Promise<ModelStepResult> => {
      await writer.startStep();
      if (announce) await writer.agent(agent.name, within ? `agent:${within.stepId}` : `agent:${iteration}`);
      // Inside the step: a durable runtime's replays of the turn do not log it again.
      if (announce && args.historyTrim && network.logHistory) {
        console.info(historyTrimLine({ agent: agent.name, ...args.historyTrim(agent) }));
      }
      const messages = [...earlier, ...toModelMessages([{ id: "reply", role: "assistant", parts: sofar }], summaryForModel)];
      const tools = modelTools(agent);
      // The call's id is made inside the step: a durable runtime's replay of it returns the same one, and its usage is stored once;
      // a retry of the step is another call, reserved anew. A row's id, not the stream's: it stays out of the turn's id sequence.
      const reserved = answerCall(args, agent, within ? "sub-agent" : "answer", inputTokensOf(agent.system, messages, tools));
      const ran = await reservedCall(
        network.spend,
        reserved,
        (maxOutputTokens) =>
          callModel({
            agent,
            model: network.model,
            messages,
            tools,
            writer,
            newId: args.newId,
            now: args.now,
            signal: context.signal,
            maxRetries: network.maxRetries,
            idleTimeoutMs: network.modelIdleTimeoutMs,
            takenCallIds,
            maxOutputTokens,
          }),
        (called) => (called.tokens ? { tokens: called.tokens, exact: true } : { tokens: estimatedSpend(reserved.inputTokens, writtenText(called.parts)), exact: false }),
      );
      if ("refusal" in ran) {
        // The person's budget ends the reply here: they are told why, and no model is called again in this turn.
        const notice: NoticePart = { type: "notice", notice: "budget", text: ran.refusal.message, ...(ran.refusal.resetsAt ? { resetsAt: ran.refusal.resetsAt } : {}) };
        await writer.budget(notice, `budget:${stepId}`);
        await writer.finishStep();
        return { parts: [notice], toolCalls: [], stopped: false, refused: true };
      }
      const called = ran.result;
      if (called.failure !== undefined && (args.retriesSteps || called.parts.length === 0)) {
        throw new ModelCallError(called.failure);
      }
      await writer.finishStep();
      const result = called.tokens ? { ...called, usageId: reserved.id } : called;
      return within ? insideResult(result, within.inside) : result;
    },
    { stoppable: true },
  ).then((result) => {
    if (result.tokens && result.usageId) {
      args.usage?.push({ id: result.usageId, agent: agent.name, purpose: within ? "sub-agent" : "answer", model: network.modelId ?? "unknown", ...result.tokens });
    }
    return result;
  });
}

/** A model call as a step returns it: with its usage's id, or refused by the person's budget (its one part says why). */
type ModelStepResult = ModelCallResult & { usageId?: string; refused?: boolean };

/** An agent's model call as its owner's bill reserves it. */
function answerCall(args: RunNetworkArgs, agent: Agent, purpose: "answer" | "sub-agent", inputTokens: number): CallToReserve {
  const { network, context } = args;
  const outputCap = network.maxOutputTokens ?? DEFAULT_OUTPUT_CAP;
  return {
    id: randomUUID(),
    owner: context.owner,
    threadId: context.threadId,
    purpose,
    agent: agent.name,
    model: network.modelId ?? "unknown",
    inputTokens,
    outputCap,
    outputMin: Math.min(LEAST_ANSWER_TOKENS, outputCap),
  };
}

/** The text a call wrote, as far as it came: what a call cut off before the provider counted it is estimated from. */
const writtenText = (parts: Part[]) => parts.map((p) => (p.type === "text" || p.type === "reasoning" ? p.text : p.type === "tool-call" ? JSON.stringify(p.input) : "")).join("");

/** A model call's result as it ran inside a sub-agent's call: every part and call tagged with it. */
function insideResult<R extends ModelCallResult>(result: R, inside: InsideCall): R {
  return {
    ...result,
    parts: result.parts.map((p) => tagInside(p, inside)),
    toolCalls: result.toolCalls.map((t) => ({ ...t, call: tagInside(t.call, inside) })),
  };
}

const tagInside = <T extends Part>(part: T, inside: InsideCall | undefined): T => (inside && part.type !== "handoff" && part.type !== "system-event" ? { ...part, ...inside } : part);

const isInside = (part: Part, parentCallId: string) => "parentCallId" in part && part.parentCallId === parentCallId;

/** The ids of the tool calls among `parts`. */
const callIdsOf = (...lists: Part[][]): Set<string> => new Set(lists.flat().flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : [])));

/** A part without the call it ran inside. */
function plain(part: Part): Part {
  if (!("parentCallId" in part)) return part;
  const { parentCallId: _parent, rootCallId: _root, ...rest } = part;
  return rest as Part;
}

/** The call a sub-agent's call part itself runs inside, if any. */
function outerOf(call: ToolCallPart): InsideCall | undefined {
  return call.parentCallId ? { parentCallId: call.parentCallId, rootCallId: call.rootCallId ?? call.parentCallId } : undefined;
}

/** A valid call of the agent's call_agent tool. */
function callsSubAgent(agent: Agent, pending: PendingToolCall): boolean {
  return pending.call.toolName === CALL_AGENT_TOOL && !pending.invalid && Boolean(agent.subAgents?.length);
}

/** How a sub-agent's call ended the turn instead of answering: Stop, a model that broke off, or a call of its own that waits for approval. */
type Ended = Pick<NetworkOutcome, "stopped" | "waiting" | "failure">;

/**
 * A sub-agent's call: the agent it names runs on the task alone, with its
 * own tools, a model call and its tool calls at a time, as any agent's run;
 * every part it writes carries the call (parentCallId) and the outermost one
 * (rootCallId). Its answer, the text it wrote, is the call's result, and the
 * caller goes on. `prior`: what it wrote before a call of its own waited for
 * the user's approval (going on after the decision); `reply`: the whole reply
 * so far, whose calls' ids its own calls must not take.
 */
async function subAgentStep(
  args: RunNetworkArgs,
  caller: Agent,
  call: ToolCallPart,
  outer: InsideCall | undefined,
  prior: Part[],
  reply: Part[],
): Promise<{ parts: Part[]; ended?: Ended }> {
  const { agent: name, task } = callAgentInput(caller).parse(call.input);
  const callee = args.network.agents.find((a) => a.name === name)!;
  const inside: InsideCall = { parentCallId: call.toolCallId, rootCallId: outer?.rootCallId ?? call.toolCallId };
  const own: Part[] = [...prior];
  const made: Part[] = [];
  const add = (...produced: Part[]) => {
    own.push(...produced);
    made.push(...produced);
  };
  const steps = `sub:${call.toolCallId}`;
  for (let n = 0; n < (callee.maxSteps ?? 1); n++) {
    const stepId = `${steps}:${prior.length}:${n}`;
    const out = await modelStep(args, {
      agent: callee,
      iteration: 0,
      call: n,
      replySoFar: own,
      takenCallIds: callIdsOf(reply, made),
      announce: n === 0,
      within: { inside, task, stepId: `${stepId}:model` },
    });
    add(...out.parts);
    if (out.refused) return { parts: made, ended: { stopped: false } };
    if (out.stopped) return { parts: made, ended: { stopped: true } };
    if (out.failure !== undefined) return { parts: made, ended: { stopped: false, failure: out.failure } };
    let waiting = false;
    for (const [index, pending] of out.toolCalls.entries()) {
      const toolId = `${stepId}:tool:${index}`;
      if (asksFirst(args.network, callee, pending)) {
        if (args.mayNotAsk !== undefined) {
          add(tagInside(await notAskedStep(args, toolId, pending, inside), inside));
          continue;
        }
        const asked: Part = { ...pending.call, approval: { id: await approvalStep(args, toolId, pending) } };
        for (const list of [own, made]) list[list.findIndex((part) => part.type === "tool-call" && part.toolCallId === asked.toolCallId)] = asked;
        waiting = true;
        continue;
      }
      add(tagInside(await toolStep(args, callee, toolId, pending, inside), inside));
    }
    if (args.context.signal?.aborted) return { parts: made, ended: { stopped: true } };
    if (waiting) return { parts: made, ended: { stopped: false, waiting: true } };
    if (out.toolCalls.length === 0) break;
  }
  const answer = own.map((p) => (p.type === "text" && isInside(p, inside.parentCallId) ? p.text : "")).join("");
  const result = tagInside<ToolResultPart>(
    { type: "tool-result", toolCallId: call.toolCallId, toolName: CALL_AGENT_TOOL, output: { agent: callee.name, result: answer }, agentName: caller.name },
    outer,
  );
  await args.step(`${steps}:result`, async () => {
    const writer = new ChunkWriter(args.publish, `${steps}:result`, outer);
    await writer.toolOutput(call.toolCallId, result.output ?? null);
    // The caller writes on: the page names it again.
    await writer.agent(caller.name, `${steps}:caller`);
  });
  return { parts: [...made, result] };
}

/** Whether a call waits for the user's approval: a call of a tool the agent has, with an input that fits it, that the tool or the operator says asks first. */
function asksFirst(network: Network, agent: Agent, pending: PendingToolCall): boolean {
  if (pending.invalid) return false;
  const tool = agent.tools?.find((t) => t.name === pending.call.toolName);
  if (!tool) return false;
  const input = tool.input.safeParse(pending.call.input);
  return input.success && asksApproval(tool, input.data, network.toolApproval);
}

/** A call that asks first, as a step: its approval's id, told to the client in the AI SDK's own terms. */
function approvalStep(args: RunNetworkArgs, stepId: string, pending: PendingToolCall): Promise<string> {
  const writer = new ChunkWriter(args.publish, stepId);
  const approvalId = args.approvalIdFor(pending.call.toolCallId);
  return args.step(`${stepId}:approval`, async () => {
    await writer.approvalRequest(pending.call.toolCallId, approvalId);
    return approvalId;
  });
}

/** A call that would ask first when the reply may ask no more, as a step: not run, its result the reason. */
function notAskedStep(args: RunNetworkArgs, stepId: string, pending: PendingToolCall, inside?: InsideCall): Promise<ToolResultPart> {
  const writer = new ChunkWriter(args.publish, stepId, inside);
  const { toolCallId, toolName, agentName } = pending.call;
  const error = args.mayNotAsk ?? "";
  return args.step(stepId, async () => {
    await writer.toolError(toolCallId, error);
    return { type: "tool-result", toolCallId, toolName, error, ...(agentName ? { agentName } : {}) };
  });
}

/** One tool call as a step: it runs the tool (or answers why it cannot run) and streams the result. */
function toolStep(args: RunNetworkArgs, agent: Agent, stepId: string, pending: PendingToolCall, inside?: InsideCall): Promise<ToolResultPart> {
  const writer = new ChunkWriter(args.publish, stepId, inside);
  return args.step(
    stepId,
    async () => {
      // Keyed like the call's approval (its reply and its id): the same however often this step runs.
      const context = { ...args.context, idempotencyKey: args.context.idempotencyKey ?? args.approvalIdFor(pending.call.toolCallId) };
      const result = await runTool(agent.tools ?? [], pending.call, context, pending.invalid);
      if (result.error !== undefined) await writer.toolError(result.toolCallId, result.error);
      else await writer.toolOutput(result.toolCallId, result.output ?? null);
      return result;
    },
    { stoppable: true },
  );
}

import "server-only";
import { parsePartialJson, stepCountIs, streamText, tool, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import { z } from "zod";
import { BROKE_OFF_TOOL_ERROR, STOPPED_TOOL_ERROR } from "@/lib/protocol/tool-errors";
import type { HandoffPart, JsonValue, Part, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from "@/lib/protocol/parts";
import { HANDOFF_TOOL } from "@/lib/model/handoff-tool";
import { describeModelError } from "@/lib/model/provider-errors";
import type { Agent } from "./network";
import type { ChunkWriter } from "./stream-chunks";
import { DeltaJoiner } from "./text-deltas";


export class ModelCallError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ModelCallError";
  }
}

/** A tool call the model made, to be run as a step of its own; `invalid` says why it cannot run. */
export interface PendingToolCall {
  call: ToolCallPart;
  invalid?: string;
}

/** What one model call produced. Plain JSON: a durable runtime memoizes it. */
export interface ModelCallResult {
  /** Reasoning, text and tool calls, in the order the model produced them, tagged with the agent. */
  parts: Part[];
  toolCalls: PendingToolCall[];
  handoff?: HandoffPart;
  stopped: boolean;
  /** The model's stream broke off or went silent after `parts` (possibly none): what to tell the user. */
  failure?: string;
}

/** A text or reasoning part being written: its stream id, the part, and what joins its deltas. */
interface OpenText<P extends TextPart | ReasoningPart = TextPart> {
  id: string;
  part: P;
  joiner: DeltaJoiner;
}

function handoffInput(agent: Agent) {
  return z.object({
    agent: z.enum(agent.handoffs as [string, ...string[]]).describe("The agent to hand over to"),
    reason: z.string().max(500).optional().describe("Why, in a few words"),
  });
}

/** The agent's tools as the model sees them: schemas only. Execution is the turn's business, one step per call. */
function modelTools(agent: Agent): ToolSet | undefined {
  const tools: ToolSet = {};
  for (const t of agent.tools ?? []) tools[t.name] = tool({ description: t.description, inputSchema: t.input });
  if (agent.handoffs?.length) {
    tools[HANDOFF_TOOL] = tool({
      description: `Hands the conversation to another agent, who then answers the user: ${agent.handoffs.join(", ")}.`,
      inputSchema: handoffInput(agent),
    });
  }
  return Object.keys(tools).length > 0 ? tools : undefined;
}

/**
 * One model call of one agent, streamed into `writer` as the model produces
 * it. On abort, what was written so far is returned with `stopped`; when the
 * stream breaks off (an error, or nothing for `idleTimeoutMs`), with `failure`.
 */
export async function callModel(args: {
  agent: Agent;
  model: LanguageModel;
  messages: ModelMessage[];
  writer: ChunkWriter;
  newId: () => string;
  signal?: AbortSignal;
  maxRetries?: number;
  /** A stream silent this long is ended as broken off. */
  idleTimeoutMs?: number;
}): Promise<ModelCallResult> {
  const { agent, writer, newId } = args;
  const tag = <T extends Part>(part: T): T => ({ ...part, agentName: agent.name });
  const parts: Part[] = [];
  const toolCalls: PendingToolCall[] = [];
  let handoff: HandoffPart | undefined;
  // The provider's ids of open text and reasoning parts → ours (unique per attempt) and the part being written.
  const texts = new Map<string, OpenText>();
  const reasonings = new Map<string, OpenText<ReasoningPart> & { startedAt: number }>();
  const endText = async (open: OpenText) => {
    const rest = open.joiner.flush();
    if (rest) {
      open.part.text += rest;
      await writer.textDelta(open.id, rest);
    }
    await writer.textEnd(open.id);
  };
  const endReasoning = async (open: OpenText<ReasoningPart> & { startedAt: number }) => {
    const rest = open.joiner.flush();
    if (rest) {
      open.part.text += rest;
      await writer.reasoningDelta(open.id, rest);
    }
    open.part.durationMs = Date.now() - open.startedAt;
    await writer.reasoningEnd(open.id, open.part.durationMs);
  };
  const handoffCalls = new Set<string>();
  // Tool calls whose input is still arriving: what the user sees of them if Stop comes now.
  const typing = new Map<string, { toolName: string; input: string }>();
  let failure: unknown;

  // The provider's own timeouts are minutes long; a model that goes quiet mid-answer is cut off sooner.
  // One timer that re-arms itself, not a new one per token: a token only notes the time.
  const silence = new AbortController();
  let silenceTimer: NodeJS.Timeout | undefined;
  let lastHeard = Date.now();
  const heardFrom = () => void (lastHeard = Date.now());
  const watchSilence = (idleMs: number, waitMs: number) => {
    silenceTimer = setTimeout(() => {
      const quietMs = Date.now() - lastHeard;
      if (quietMs >= idleMs) silence.abort();
      else watchSilence(idleMs, idleMs - quietMs);
    }, waitMs);
  };
  if (args.idleTimeoutMs !== undefined) watchSilence(args.idleTimeoutMs, args.idleTimeoutMs);
  const result = streamText({
    model: agent.model ?? args.model,
    system: agent.system,
    messages: args.messages,
    // The one system message among them is a compaction summary the server
    // wrote and read from its database (a client's copy never supplies one).
    allowSystemInMessages: true,
    tools: modelTools(agent),
    stopWhen: stepCountIs(1),
    abortSignal: args.signal ? AbortSignal.any([args.signal, silence.signal]) : silence.signal,
    maxRetries: args.maxRetries,
    // Errors arrive as stream parts below; the default handler would only log them.
    onError: () => {},
  });
  try {
    for await (const chunk of result.fullStream) {
      heardFrom();
      switch (chunk.type) {
        case "text-start": {
          const open = { id: newId(), part: tag<TextPart>({ type: "text", text: "" }), joiner: new DeltaJoiner() };
          texts.set(chunk.id, open);
          parts.push(open.part);
          await writer.textStart(open.id);
          break;
        }
        case "text-delta": {
          const open = texts.get(chunk.id);
          if (!open) break;
          const text = open.joiner.push(chunk.text);
          if (!text) break;
          open.part.text += text;
          // Most deltas are taken without a promise (merged into the one held back): await only one.
          const sent = writer.textDelta(open.id, text);
          if (sent) await sent;
          break;
        }
        case "text-end": {
          const open = texts.get(chunk.id);
          texts.delete(chunk.id);
          if (open) await endText(open);
          break;
        }
        case "reasoning-start": {
          const open = { id: newId(), part: tag<ReasoningPart>({ type: "reasoning", text: "" }), startedAt: Date.now(), joiner: new DeltaJoiner() };
          reasonings.set(chunk.id, open);
          parts.push(open.part);
          await writer.reasoningStart(open.id);
          break;
        }
        case "reasoning-delta": {
          const open = reasonings.get(chunk.id);
          if (!open) break;
          const text = open.joiner.push(chunk.text);
          if (!text) break;
          open.part.text += text;
          const sent = writer.reasoningDelta(open.id, text);
          if (sent) await sent;
          break;
        }
        case "reasoning-end": {
          const open = reasonings.get(chunk.id);
          reasonings.delete(chunk.id);
          if (open) await endReasoning(open);
          break;
        }
        case "tool-input-start":
          // A hand-over is shown as one, not as a tool card.
          if (chunk.toolName === HANDOFF_TOOL) handoffCalls.add(chunk.id);
          else {
            typing.set(chunk.id, { toolName: chunk.toolName, input: "" });
            await writer.toolInputStart(chunk.id, chunk.toolName);
          }
          break;
        case "tool-input-delta": {
          const call = typing.get(chunk.id);
          if (!call) break;
          call.input += chunk.delta;
          await writer.toolInputDelta(chunk.id, chunk.delta);
          break;
        }
        case "tool-call": {
          const input = (chunk.input ?? {}) as JsonValue;
          if (chunk.toolName === HANDOFF_TOOL && !chunk.invalid && agent.handoffs?.length) {
            const { agent: to, reason } = handoffInput(agent).parse(chunk.input);
            handoff = tag<HandoffPart>({ type: "handoff", to, ...(reason ? { reason } : {}) });
            await writer.handoff(to, reason, newId());
            break;
          }
          typing.delete(chunk.toolCallId);
          const call = tag<ToolCallPart>({ type: "tool-call", toolCallId: chunk.toolCallId, toolName: chunk.toolName, input });
          parts.push(call);
          const invalid = chunk.invalid ? describeInvalidCall(chunk.toolName, chunk.error, agent) : undefined;
          toolCalls.push({ call, ...(invalid ? { invalid } : {}) });
          await writer.toolInputAvailable(call.toolCallId, call.toolName, input);
          break;
        }
        case "error":
          failure = chunk.error;
          break;
      }
    }
  } catch (error) {
    // An abort surfaces as whatever the provider's interrupted fetch throws.
    failure = error;
  } finally {
    clearTimeout(silenceTimer);
  }
  const stopped = args.signal?.aborted ?? false;
  const silent = silence.signal.aborted && !stopped;
  // A part cut off by Stop ends where it was.
  for (const open of texts.values()) await endText(open);
  for (const open of reasonings.values()) await endReasoning(open);
  const broken = !stopped && (silent || failure !== undefined);
  // The provider's own words stay in the log: the user is told only the kind of failure.
  if (broken) console.error(`[model] ${agent.name}'s answer broke off:`, silent ? `no output for ${args.idleTimeoutMs} ms` : failure);
  if (stopped || broken) {
    // A call cut off while its input was arriving is kept with the input so far, as the user saw it.
    for (const [toolCallId, { toolName, input: text }] of typing) {
      const { value } = await parsePartialJson(text);
      const input = (value ?? {}) as JsonValue;
      const call = tag<ToolCallPart>({ type: "tool-call", toolCallId, toolName, input });
      parts.push(call);
      toolCalls.push({ call });
      await writer.toolInputAvailable(toolCallId, toolName, input);
    }
    // Calls the model made are not run; each gets its result, so the model never sees a call without one.
    const error = stopped ? STOPPED_TOOL_ERROR : BROKE_OFF_TOOL_ERROR;
    for (const { call } of toolCalls) {
      parts.push(tag<ToolResultPart>({ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, error }));
      await writer.toolError(call.toolCallId, error);
    }
  }
  const ended = stopped || broken;
  return {
    parts: parts.filter((part) => part.type !== "text" || part.text.length > 0),
    toolCalls: ended ? [] : toolCalls,
    ...(handoff && !ended ? { handoff } : {}),
    stopped,
    ...(broken
      ? { failure: silent ? `The model stopped answering: nothing arrived for ${Math.round(args.idleTimeoutMs! / 1000)} s.` : describeModelError(failure) }
      : {}),
  };
}

function describeInvalidCall(toolName: string, error: unknown, agent: Agent): string {
  const known = [...(agent.tools ?? []).map((t) => t.name), ...(agent.handoffs?.length ? [HANDOFF_TOOL] : [])];
  if (!known.includes(toolName)) return `There is no tool named "${toolName}". The tools are: ${known.join(", ") || "none"}.`;
  return `The input does not fit ${toolName}: ${error instanceof Error ? error.message : String(error)}`;
}

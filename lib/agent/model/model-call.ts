import "server-only";
import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import type { Tokens } from "@threadline/history/usage";
import type { LanguageModel, ModelMessage, TextStreamPart, ToolSet } from "ai";
import { BROKE_OFF_TOOL_ERROR, STOPPED_TOOL_ERROR } from "@/lib/protocol/tool-errors";
import type { HandoffPart, Part } from "@threadline/history/parts";
import { describeModelError } from "@/lib/model/provider-errors";
import { brokeOff, emptyStream, endStream, reduceChunk, type ModelStream, type PendingToolCall, type StreamContext, type StreamWrite } from "./model-stream-reducer";
import { modelTools } from "./model-tools";
import { watchModelCall } from "./model-watchdog";
import { openProviderStream, parseToolCall, type ProviderCall } from "./provider-stream";
import type { Agent } from "../network/network";
import type { ChunkWriter } from "../turn/stream-chunks";

export class ModelCallError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ModelCallError";
  }
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
  /** What the call spent, as the provider reported it at the stream's end (none when it broke off first). */
  tokens?: Tokens;
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
  /** The clock reasoning is timed by; Date.now unless given. */
  now?: () => number;
  signal?: AbortSignal;
  maxRetries?: number;
  /** A stream silent this long is ended as broken off. */
  idleTimeoutMs?: number;
  /** The ids of the tool calls the reply already holds: a call the provider names alike gets another (model-stream-reducer.ts). */
  takenCallIds?: ReadonlySet<string>;
  /** The most the model may write (the call's reservation); unset: the provider's own limit. */
  maxOutputTokens?: number;
  /** The tools, as built for the agent; unset: built here. */
  tools?: ToolSet;
}): Promise<ModelCallResult> {
  const { agent, writer } = args;
  const context: StreamContext = { agent, newId: args.newId, now: args.now ?? Date.now, takenCallIds: args.takenCallIds };
  const watchdog = watchModelCall(args.signal, args.idleTimeoutMs);
  let stream: ModelStream;
  let tokens: Tokens | undefined;
  try {
    const call: ProviderCall = {
      model: agent.model ?? args.model,
      system: agent.system,
      messages: args.messages,
      tools: args.tools ?? modelTools(agent),
      abortSignal: watchdog.signal,
      maxRetries: args.maxRetries,
      maxOutputTokens: args.maxOutputTokens,
    };
    stream = await readStream(call, writer, context, watchdog.heard, (usage) => (tokens = tokensOf(usage)));
  } finally {
    watchdog.dispose();
  }

  const stopped = args.signal?.aborted ?? false;
  const silenceMs = stopped ? undefined : watchdog.silenceMs();
  const broken = !stopped && (silenceMs !== undefined || stream.failure !== undefined);
  // The provider's own words stay in the log: the user is told only the kind of failure.
  if (broken) console.error(`[model] ${agent.name}'s answer broke off:`, silenceMs !== undefined ? `no output for ${silenceMs} ms` : stream.failure?.error);
  const ended = stopped || broken;
  // Calls the model made are not run once it was stopped or broke off.
  const last = await endStream(stream, context, stopped ? STOPPED_TOOL_ERROR : broken ? BROKE_OFF_TOOL_ERROR : undefined);
  await writeAll(writer, last.writes);
  return {
    parts: last.stream.parts.filter((part) => part.type !== "text" || part.text.length > 0),
    toolCalls: ended ? [] : [...last.stream.toolCalls],
    ...(last.stream.handoff && !ended ? { handoff: last.stream.handoff } : {}),
    stopped,
    ...(broken ? { failure: brokeOffMessage(silenceMs, stream.failure?.error) } : {}),
    ...(tokens ? { tokens } : {}),
  };
}

/** The provider's usage in the four numbers a turn keeps (0 where it did not say). */
export function tokensOf(usage: LanguageModelV3Usage): Tokens {
  return {
    inputTokens: usage.inputTokens.total ?? 0,
    outputTokens: usage.outputTokens.total ?? 0,
    cachedTokens: usage.inputTokens.cacheRead ?? 0,
    reasoningTokens: usage.outputTokens.reasoning ?? 0,
  };
}

/** What the user is told of a model that broke off: the kind of failure, never the provider's words. */
function brokeOffMessage(silenceMs: number | undefined, error: unknown): string {
  if (silenceMs !== undefined) return `The model stopped answering: nothing arrived for ${Math.round(silenceMs / 1000)} s.`;
  return describeModelError(error);
}

/**
 * The model's stream reduced to parts as it arrives, each change written as
 * it comes; what broke it off (the request, or the stream) is kept in the
 * state. The provider's stream is read directly, one read per part.
 */
async function readStream(
  call: ProviderCall,
  writer: ChunkWriter,
  context: StreamContext,
  heard: () => void,
  finished: (usage: LanguageModelV3Usage) => void,
): Promise<ModelStream> {
  let stream = emptyStream;
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
  try {
    reader = (await openProviderStream(call)).getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) return stream;
      heard();
      if (next.value.type === "finish") finished(next.value.usage);
      const chunk = next.value.type === "tool-call" ? await parseToolCall(next.value, call.tools) : asChunk(next.value);
      if (chunk === undefined) continue;
      const reduced = reduceChunk(stream, chunk as TextStreamPart<ToolSet>, context);
      stream = reduced.stream;
      if (reduced.writes.length === 0) continue;
      const sent = writeAll(writer, reduced.writes);
      if (sent) await sent;
    }
  } catch (error) {
    // The provider's request is given up (an abort, or a write that failed): its connection closes.
    reader?.cancel(error).catch(() => {});
    return brokeOff(stream, error);
  }
}

/** A provider's part as the reducer reads it (the AI SDK's names for it); undefined for what it ignores. */
function asChunk(part: LanguageModelV3StreamPart): Partial<TextStreamPart<ToolSet>> | undefined {
  switch (part.type) {
    case "text-delta":
    case "reasoning-delta":
      return { type: part.type, id: part.id, text: part.delta };
    case "text-start":
    case "text-end":
    case "reasoning-start":
    case "reasoning-end":
    case "tool-input-start":
    case "tool-input-delta":
    case "error":
      return part as Partial<TextStreamPart<ToolSet>>;
    default:
      return undefined;
  }
}

/**
 * The writes, in order. Not async: most deltas are taken without a promise
 * (merged into the one held back), so only a write that returns one is awaited.
 */
function writeAll(writer: ChunkWriter, writes: StreamWrite[], from = 0): void | Promise<void> {
  for (let i = from; i < writes.length; i++) {
    const sent = write(writer, writes[i]);
    if (sent) return sent.then(() => writeAll(writer, writes, i + 1));
  }
}

function write(writer: ChunkWriter, change: StreamWrite): void | Promise<void> {
  switch (change.type) {
    case "start":
      return change.kind === "text" ? writer.textStart(change.id) : writer.reasoningStart(change.id);
    case "delta":
      return change.kind === "text" ? writer.textDelta(change.id, change.text) : writer.reasoningDelta(change.id, change.text);
    case "end":
      return change.kind === "text" ? writer.textEnd(change.id) : writer.reasoningEnd(change.id, change.durationMs);
    case "tool-input-start":
      return writer.toolInputStart(change.toolCallId, change.toolName);
    case "tool-input-delta":
      return writer.toolInputDelta(change.toolCallId, change.delta);
    case "tool-input-available":
      return writer.toolInputAvailable(change.toolCallId, change.toolName, change.input);
    case "tool-error":
      return writer.toolError(change.toolCallId, change.error);
    case "handoff":
      return writer.handoff(change.to, change.reason, change.id);
  }
}

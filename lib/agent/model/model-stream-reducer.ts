import { parsePartialJson, type TextStreamPart, type ToolSet } from "ai";
import { HANDOFF_TOOL } from "@/lib/model/handoff-tool";
import type { HandoffPart, JsonValue, Part, ToolCallPart, ToolResultPart } from "@threadline/history/parts";
import { describeInvalidCall, handoffInput } from "./model-tools";
import type { Agent } from "../network/network";
import { flushDelta, joinDelta } from "./text-deltas";

// A model call's stream, reduced to the parts of a reply: each chunk the AI
// SDK reads from the provider gives the next state, and the writes that show
// the change to the user (ChunkWriter's calls, as data). Pure: the clock and
// the ids come from the context, so the same chunks give the same parts and
// writes, and a test needs no model, no writer and no timer.
//
// Text and reasoning are one kind of part here, a stream of deltas between a
// start and an end; reasoning also records how long it took.
//
// A tool call's id is the provider's, unless the reply already holds a call
// under it (a provider may repeat one, within a response or across the
// reply's model calls): then the id gets a suffix (_2, _3 …), the first one
// free. Everything after reads the call by that id (its result, its approval's
// id, the model's next request), so two calls never share one. The ids taken
// come from the reply so far and this stream, so the same chunks after the
// same reply give the same ids: a durable runtime's replay agrees.

/** The parts that stream as deltas. */
export type Streamed = "text" | "reasoning";

/** A tool call the model made, to be run as a step of its own; `invalid` says why it cannot run. */
export interface PendingToolCall {
  call: ToolCallPart;
  invalid?: string;
}

/** A text or reasoning part being written. */
interface OpenPart {
  kind: Streamed;
  /** Ours, unique per attempt (the provider's may repeat across calls). */
  id: string;
  /** Where the part is in `parts`. */
  at: number;
  /** Half a character the last delta ended with, kept back for the next one. */
  held: string;
  startedAt: number;
}

/** What a model's stream has produced so far. A value: each chunk gives a new one. */
export interface ModelStream {
  /** Reasoning, text and tool calls, in the order the model produced them, tagged with the agent. */
  readonly parts: readonly Part[];
  /** The parts being written, by the provider's kind and id. */
  readonly open: ReadonlyMap<string, OpenPart>;
  /** Tool calls whose input is still arriving, by the provider's id, under the id the call takes: what the user sees of them if Stop comes now. */
  readonly typing: ReadonlyMap<string, { toolCallId: string; toolName: string; input: string }>;
  readonly toolCalls: readonly PendingToolCall[];
  readonly handoff?: HandoffPart;
  /** What broke the stream off (an error part, or what reading it threw). */
  readonly failure?: { error: unknown };
}

/** What the user is shown of a change, in the order it must be written. */
export type StreamWrite =
  | { type: "start"; kind: Streamed; id: string }
  | { type: "delta"; kind: Streamed; id: string; text: string }
  | { type: "end"; kind: "text"; id: string }
  | { type: "end"; kind: "reasoning"; id: string; durationMs: number }
  | { type: "tool-input-start"; toolCallId: string; toolName: string }
  | { type: "tool-input-delta"; toolCallId: string; delta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: JsonValue }
  | { type: "tool-error"; toolCallId: string; error: string }
  | { type: "handoff"; to: string; reason?: string; id: string };

export interface StreamContext {
  agent: Agent;
  newId: () => string;
  now: () => number;
  /** The ids of the tool calls the reply already holds (its earlier model calls, a sub-agent's, those before a decision). */
  takenCallIds?: ReadonlySet<string>;
}

export interface Reduced {
  stream: ModelStream;
  writes: StreamWrite[];
}

export const emptyStream: ModelStream = { parts: [], open: new Map(), typing: new Map(), toolCalls: [] };

const key = (kind: Streamed, providerId: string) => `${kind}:${providerId}`;
const kindOf = (type: `${Streamed}-${string}`): Streamed => (type.startsWith("text") ? "text" : "reasoning");
const tag = <T extends Part>(part: T, context: StreamContext): T => ({ ...part, agentName: context.agent.name });
const unchanged = (stream: ModelStream): Reduced => ({ stream, writes: [] });

function withEntry<K, V>(map: ReadonlyMap<K, V>, k: K, v: V): Map<K, V> {
  return new Map(map).set(k, v);
}

function withoutEntry<K, V>(map: ReadonlyMap<K, V>, k: K): Map<K, V> {
  const copy = new Map(map);
  copy.delete(k);
  return copy;
}

/** The state after one chunk of the model's stream, and what to write for it. */
export function reduceChunk(stream: ModelStream, chunk: TextStreamPart<ToolSet>, context: StreamContext): Reduced {
  switch (chunk.type) {
    case "text-start":
    case "reasoning-start":
      return openPart(stream, kindOf(chunk.type), chunk.id, context);
    case "text-delta":
    case "reasoning-delta": {
      const k = key(kindOf(chunk.type), chunk.id);
      const open = stream.open.get(k);
      if (!open) return unchanged(stream);
      const { text, held } = joinDelta(open.held, chunk.text);
      // Most deltas end on a whole character: the open part is then as it was, and no copy is made of it.
      return addText(held === open.held ? stream : { ...stream, open: withEntry(stream.open, k, { ...open, held }) }, open, text);
    }
    case "text-end":
    case "reasoning-end": {
      const k = key(kindOf(chunk.type), chunk.id);
      const open = stream.open.get(k);
      return open ? closePart({ ...stream, open: withoutEntry(stream.open, k) }, open, context) : unchanged(stream);
    }
    case "tool-input-start": {
      // A hand-over is shown as one, not as a tool card.
      if (chunk.toolName === HANDOFF_TOOL) return unchanged(stream);
      const toolCallId = freeCallId(stream, chunk.id, context);
      return {
        stream: { ...stream, typing: withEntry(stream.typing, chunk.id, { toolCallId, toolName: chunk.toolName, input: "" }) },
        writes: [{ type: "tool-input-start", toolCallId, toolName: chunk.toolName }],
      };
    }
    case "tool-input-delta": {
      const call = stream.typing.get(chunk.id);
      if (!call) return unchanged(stream);
      return {
        stream: { ...stream, typing: withEntry(stream.typing, chunk.id, { ...call, input: call.input + chunk.delta }) },
        writes: [{ type: "tool-input-delta", toolCallId: call.toolCallId, delta: chunk.delta }],
      };
    }
    case "tool-call":
      return toolCall(stream, chunk, context);
    case "error":
      return unchanged({ ...stream, failure: { error: chunk.error } });
    default:
      return unchanged(stream);
  }
}

function openPart(stream: ModelStream, kind: Streamed, providerId: string, context: StreamContext): Reduced {
  const open: OpenPart = { kind, id: context.newId(), at: stream.parts.length, held: "", startedAt: context.now() };
  return {
    stream: { ...stream, parts: [...stream.parts, tag({ type: kind, text: "" }, context)], open: withEntry(stream.open, key(kind, providerId), open) },
    writes: [{ type: "start", kind, id: open.id }],
  };
}

/** Text added to an open part, and sent on. */
function addText(stream: ModelStream, open: OpenPart, text: string): Reduced {
  const part = stream.parts[open.at];
  if (!text || part.type !== open.kind) return unchanged(stream);
  return {
    stream: { ...stream, parts: stream.parts.with(open.at, { ...part, text: part.text + text }) },
    writes: [{ type: "delta", kind: open.kind, id: open.id, text }],
  };
}

/** An open part ended (it is no longer in `stream.open`): what it held back goes out, and reasoning learns how long it took. */
function closePart(stream: ModelStream, open: OpenPart, context: StreamContext): Reduced {
  const flushed = addText(stream, open, flushDelta(open.held).text);
  if (open.kind === "text") return { stream: flushed.stream, writes: [...flushed.writes, { type: "end", kind: "text", id: open.id }] };
  const durationMs = context.now() - open.startedAt;
  const part = flushed.stream.parts[open.at];
  const parts = part.type === "reasoning" ? flushed.stream.parts.with(open.at, { ...part, durationMs }) : flushed.stream.parts;
  return { stream: { ...flushed.stream, parts }, writes: [...flushed.writes, { type: "end", kind: "reasoning", id: open.id, durationMs }] };
}

type ToolCallChunk = Extract<TextStreamPart<ToolSet>, { type: "tool-call" }>;

/** A call the model made in full: a hand-over it may make, or a tool call to run (or to answer with why it cannot run). */
function toolCall(stream: ModelStream, chunk: ToolCallChunk, context: StreamContext): Reduced {
  const { agent } = context;
  if (chunk.toolName === HANDOFF_TOOL && !chunk.invalid && agent.handoffs?.length) {
    const { agent: to, reason } = handoffInput(agent).parse(chunk.input);
    const id = context.newId();
    return {
      stream: { ...stream, handoff: tag<HandoffPart>({ type: "handoff", to, ...(reason ? { reason } : {}) }, context) },
      writes: [{ type: "handoff", to, ...(reason ? { reason } : {}), id }],
    };
  }
  const input = (chunk.input ?? {}) as JsonValue;
  // The id its input arrived under, or (a call that came whole) a free one.
  const toolCallId = stream.typing.get(chunk.toolCallId)?.toolCallId ?? freeCallId(stream, chunk.toolCallId, context);
  const call = tag<ToolCallPart>({ type: "tool-call", toolCallId, toolName: chunk.toolName, input }, context);
  const invalid = chunk.invalid ? describeInvalidCall(chunk.toolName, chunk.error, agent) : undefined;
  return {
    stream: {
      ...stream,
      parts: [...stream.parts, call],
      typing: withoutEntry(stream.typing, chunk.toolCallId),
      toolCalls: [...stream.toolCalls, { call, ...(invalid ? { invalid } : {}) }],
    },
    writes: [{ type: "tool-input-available", toolCallId: call.toolCallId, toolName: call.toolName, input }],
  };
}

/** The longest id a stored tool call may have (packages/history/src/parts.ts). */
const MAX_CALL_ID = 256;

/** The provider's id for a new call, or, if the reply or this stream already holds a call under it, the first free one with a suffix. */
function freeCallId(stream: ModelStream, providerId: string, context: StreamContext): string {
  const taken = (id: string) =>
    context.takenCallIds?.has(id) ||
    stream.toolCalls.some(({ call }) => call.toolCallId === id) ||
    [...stream.typing.values()].some((call) => call.toolCallId === id);
  if (!taken(providerId)) return providerId;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const id = providerId.slice(0, MAX_CALL_ID - suffix.length) + suffix;
    if (!taken(id)) return id;
  }
}

/** Reading the stream threw: it broke off there (an abort surfaces as whatever the provider's interrupted fetch throws). */
export const brokeOff = (stream: ModelStream, error: unknown): ModelStream => ({ ...stream, failure: { error } });

/**
 * The stream has ended. A part still open (cut off by Stop or a break) ends
 * where it was. With `cutOff` (the error a call that will not run is answered
 * with), each call whose input was still arriving is kept with the input so
 * far, as the user saw it, and every call gets `cutOff` as its result, so the
 * model never sees a call without one.
 */
export async function endStream(stream: ModelStream, context: StreamContext, cutOff?: string): Promise<Reduced> {
  let ended: Reduced = { stream: { ...stream, open: new Map() }, writes: [] };
  const append = (next: Reduced) => void (ended = { stream: next.stream, writes: [...ended.writes, ...next.writes] });
  for (const open of stream.open.values()) append(closePart(ended.stream, open, context));
  if (cutOff === undefined) return ended;
  for (const [providerId, { toolName, input: text }] of stream.typing) {
    const { value } = await parsePartialJson(text);
    append(toolCall(ended.stream, { type: "tool-call", toolCallId: providerId, toolName, input: value ?? {}, dynamic: true }, context));
  }
  for (const { call } of ended.stream.toolCalls) {
    const result = tag<ToolResultPart>({ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, error: cutOff }, context);
    append({ stream: { ...ended.stream, parts: [...ended.stream.parts, result] }, writes: [{ type: "tool-error", toolCallId: call.toolCallId, error: cutOff }] });
  }
  return ended;
}

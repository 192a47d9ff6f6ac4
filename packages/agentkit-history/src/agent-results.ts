// AgentKit's AgentResult and Threadline's message parts, both ways. Pure: the
// hooks (./index.ts) store and read with the app's adapter, and convert here.
//
// Storing: a run's results become one assistant message whose parts keep the
// order the network produced them in (each result's output, then its tool
// results), each part tagged with its agent. Reading back: a thread's messages
// become results again, the way a network would have produced them: a user's
// message is a result of agentName "user"; an assistant message is split where
// the agent changes or text or a call follows tool results, so every call the
// provider sees is followed by its result. As in the app's own model requests,
// reasoning and hand-overs stay out, a call without its result is left out, and
// a compaction summary comes back as a system message.
import {
  AgentResult,
  type Message,
  type TextMessage,
  type ToolCallMessage,
  type ToolResultMessage,
} from "@inngest/agent-kit";
import { canonicalParts } from "@threadline/history/codec";
import { textOf, type JsonValue, type Part } from "@threadline/history/parts";
import type { StoredMessage } from "@threadline/history/messages";

/** The agentName of a user's message read back. */
export const USER_AGENT = "user";
/** The agentName of the compaction summary read back. */
export const SYSTEM_AGENT = "system";
/** A part stored without an agent's name (written by a client that gave none). */
const UNNAMED_AGENT = "assistant";

/** A value as JSON holds it (what a part's input or output may be). */
function asJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

function textContent(message: TextMessage): string {
  return typeof message.content === "string" ? message.content : message.content.map((c) => c.text).join("");
}

/** What a tool's handler gave AgentKit: `{ data }`, or `{ error }` when it threw. */
function toolOutcome(content: unknown): { output: JsonValue } | { error: string } {
  if (content !== null && typeof content === "object") {
    if ("error" in content) {
      const error = (content as { error: unknown }).error;
      if (typeof error === "string") return { error };
      const message = (error as { message?: unknown } | null)?.message;
      return { error: typeof message === "string" ? message : JSON.stringify(error) };
    }
    if ("data" in content) return { output: asJson((content as { data: unknown }).data) };
  }
  return { output: asJson(content) };
}

/** A run's new results as the parts of one reply, in the order they were produced. */
export function resultsToParts(results: AgentResult[]): Part[] {
  const parts: Part[] = [];
  for (const result of results) {
    const agentName = result.agentName;
    for (const message of result.output) {
      if (message.type === "text" && message.role === "assistant") {
        const text = textContent(message);
        if (text.length > 0) parts.push({ type: "text", text, agentName });
      } else if (message.type === "tool_call") {
        for (const tool of message.tools) {
          parts.push({ type: "tool-call", toolCallId: tool.id, toolName: tool.name, input: asJson(tool.input ?? {}), agentName });
        }
      }
    }
    for (const call of result.toolCalls) {
      parts.push({ type: "tool-result", toolCallId: call.tool.id, toolName: call.tool.name, ...toolOutcome(call.content), agentName });
    }
  }
  return parts;
}

/** One result being rebuilt from an assistant message's parts. */
interface Building {
  agentName: string;
  output: Message[];
  toolCalls: ToolResultMessage[];
}

function assistantToResults(message: StoredMessage): AgentResult[] {
  const parts = canonicalParts(message.parts);
  const answered = new Set(parts.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : [])));
  const inputs = new Map(parts.flatMap((p) => (p.type === "tool-call" ? [[p.toolCallId, p.input] as const] : [])));
  const built: Building[] = [];
  const current = (agentName: string, startsOutput: boolean): Building => {
    const last = built.at(-1);
    if (last && last.agentName === agentName && !(startsOutput && last.toolCalls.length > 0)) return last;
    const next: Building = { agentName, output: [], toolCalls: [] };
    built.push(next);
    return next;
  };
  for (const part of parts) {
    const agentName = ("agentName" in part ? part.agentName : undefined) ?? UNNAMED_AGENT;
    if (part.type === "text" && part.text.length > 0) {
      current(agentName, true).output.push({ type: "text", role: "assistant", content: part.text, stop_reason: "stop" });
    } else if (part.type === "tool-call" && answered.has(part.toolCallId)) {
      const result = current(agentName, true);
      const last = result.output.at(-1);
      const tool = { type: "tool" as const, id: part.toolCallId, name: part.toolName, input: part.input as Record<string, unknown> };
      if (last?.type === "tool_call") last.tools.push(tool);
      else result.output.push({ type: "tool_call", role: "assistant", tools: [tool], stop_reason: "tool" } satisfies ToolCallMessage);
    } else if (part.type === "tool-result" && inputs.has(part.toolCallId)) {
      current(agentName, false).toolCalls.push({
        type: "tool_result",
        role: "tool_result",
        tool: { type: "tool", id: part.toolCallId, name: part.toolName, input: inputs.get(part.toolCallId) as Record<string, unknown> },
        content: part.error !== undefined ? { error: part.error } : { data: part.output },
        stop_reason: "tool",
      });
    }
  }
  const createdAt = new Date(message.createdAt);
  return built.map(
    (b, i) => new AgentResult(b.agentName, b.output, b.toolCalls, createdAt, undefined, undefined, undefined, i === 0 ? message.id : `${message.id}:${i}`),
  );
}

/**
 * A thread's messages (and the text of its latest summary, when it has one:
 * the messages are then those after it) as AgentKit's results, in order.
 */
export function messagesToResults(messages: StoredMessage[], summaryText?: string): AgentResult[] {
  const results: AgentResult[] = [];
  if (summaryText !== undefined) {
    const createdAt = new Date(messages[0]?.createdAt ?? Date.now());
    results.push(new AgentResult(SYSTEM_AGENT, [{ type: "text", role: "system", content: summaryText }], [], createdAt));
  }
  for (const message of messages) {
    if (message.role === "user") {
      const output: Message[] = [{ type: "text", role: "user", content: textOf(message) }];
      results.push(new AgentResult(USER_AGENT, output, [], new Date(message.createdAt), undefined, undefined, undefined, message.id));
    } else if (message.role === "assistant") {
      results.push(...assistantToResults(message));
    }
  }
  return results;
}

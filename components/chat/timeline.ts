// A reply's parts as the bubble shows them: sections, one per speaking agent
// (each data-agent part starts one), each holding its text, reasoning, tool
// calls and hand-overs in order. A sub-agent's parts (those that carry the
// call they run inside, parentCallId) nest under that call instead. Pure functions only.
import type { DynamicToolUIPart, ReasoningUIPart } from "ai";
import type { ChatMessage } from "@/lib/client/messages";
import { UI_METADATA_KEY, uiParentCallId } from "@/lib/protocol/parts-codec";
import { CALL_AGENT_TOOL } from "@/lib/model/handoff-tool";

type UIPart = ChatMessage["parts"][number];

export type TimelineItem =
  | { kind: "text"; key: string; text: string }
  | { kind: "reasoning"; key: string; part: ReasoningUIPart }
  | { kind: "tool"; key: string; part: DynamicToolUIPart }
  | { kind: "sub-agent"; key: string; part: DynamicToolUIPart; call: SubAgentCall }
  | { kind: "handoff"; key: string; from?: string; to: string; reason?: string }
  | { kind: "budget"; key: string; text: string; resetsAt?: string };

/** A call of another agent as a sub-agent: who, on what task, and what it did inside the call, in order. */
export interface SubAgentCall {
  agent: string;
  task?: string;
  /** Its answer, once the call returned. */
  result?: string;
  items: TimelineItem[];
}

export interface TimelineSection {
  key: string;
  /** The agent that speaks in this section; none for parts written before any data-agent part. */
  agent?: string;
  items: TimelineItem[];
}

export function buildTimeline(parts: ChatMessage["parts"]): TimelineSection[] {
  const sections: TimelineSection[] = [{ key: "s-start", items: [] }];
  // Each sub-agent call's items by its call id, so that the parts inside it land there wherever they come.
  const calls = new Map<string, SubAgentCall>();
  parts.forEach((part, index) => {
    const section = sections[sections.length - 1];
    const key = `p${index}`;
    const parent = uiParentCallId(part);
    const into = (parent !== undefined ? calls.get(parent)?.items : undefined) ?? section.items;
    switch (part.type) {
      case "data-agent":
        // A sub-agent announced for its call speaks inside it; the same agent announced again (a new step of its own) goes on in its section.
        if (announcesSubAgent(parts, index, calls)) break;
        if (part.data.name !== section.agent) sections.push({ key: `s${index}`, agent: part.data.name, items: [] });
        break;
      case "data-handoff":
        section.items.push({ kind: "handoff", key, from: section.agent, to: part.data.to, reason: part.data.reason });
        break;
      case "data-budget":
        section.items.push({ kind: "budget", key, text: part.data.text, resetsAt: part.data.resetsAt });
        break;
      case "text":
        if (part.text.length > 0) into.push({ kind: "text", key, text: part.text });
        break;
      case "reasoning":
        into.push({ kind: "reasoning", key: part.id ? `r-${part.id}` : key, part });
        break;
      case "dynamic-tool": {
        const call = subAgentCall(part);
        if (call) {
          calls.set(part.toolCallId, call);
          into.push({ kind: "sub-agent", key: `t-${part.toolCallId}`, part, call });
        } else into.push({ kind: "tool", key: `t-${part.toolCallId}`, part });
        break;
      }
      default:
        break; // step-start and anything the app does not produce
    }
  });
  // Sections with nothing to show are left out, except the last one (its agent is about to speak).
  return sections.filter((section, index) => section.items.length > 0 || (index === sections.length - 1 && section.agent !== undefined));
}

/** A call of the call_agent tool, with the agent it names (its input may still be arriving). */
function subAgentCall(part: DynamicToolUIPart): SubAgentCall | undefined {
  if (part.toolName !== CALL_AGENT_TOOL) return undefined;
  const input = (part.input ?? {}) as { agent?: unknown; task?: unknown };
  const output = part.state === "output-available" ? ((part.output ?? {}) as { result?: unknown }) : {};
  return {
    agent: typeof input.agent === "string" ? input.agent : "Agent",
    ...(typeof input.task === "string" ? { task: input.task } : {}),
    ...(typeof output.result === "string" ? { result: output.result } : {}),
    items: [],
  };
}

/**
 * Whether a data-agent part names the agent of a sub-agent call rather than
 * the next speaker: the parts after it run inside a call, or, while the
 * reply streams, nothing came after it yet and a call of that agent is open.
 */
function announcesSubAgent(parts: ChatMessage["parts"], index: number, calls: Map<string, SubAgentCall>): boolean {
  for (let at = index + 1; at < parts.length; at++) {
    const next = parts[at];
    if (next.type !== "data-agent" && next.type !== "step-start") return uiParentCallId(next) !== undefined;
  }
  const name = (parts[index] as { data: { name: string } }).data.name;
  return [...calls.values()].some((call) => call.agent === name && call.result === undefined);
}

/** How long the model thought, as the server recorded it. */
export function reasoningDurationMs(part: ReasoningUIPart): number | undefined {
  const durationMs = part.providerMetadata?.[UI_METADATA_KEY]?.durationMs;
  return typeof durationMs === "number" ? durationMs : undefined;
}

const TOOL_STATE_RANK: Record<DynamicToolUIPart["state"], number> = {
  "input-streaming": 1,
  "input-available": 2,
  "approval-requested": 3,
  "approval-responded": 4,
  "output-available": 5,
  "output-error": 5,
  "output-denied": 5,
};

/**
 * Grows whenever any part of the message does: more parts, longer text or
 * reasoning, a tool call's input arriving or its state moving on. For the
 * auto-scroll, which follows the end of the thread while it grows.
 */
export function messageSize(message: Pick<ChatMessage, "parts">): string {
  let chars = 0;
  let tools = 0;
  for (const part of message.parts as UIPart[]) {
    if (part.type === "text" || part.type === "reasoning") chars += part.text.length;
    else if (part.type === "dynamic-tool") {
      tools += TOOL_STATE_RANK[part.state] ?? 0;
      if (part.state === "input-streaming") chars += jsonLength(part.input);
    }
  }
  return `${message.parts.length}.${chars}.${tools}`;
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** Whether a call inside a sub-agent's call (at any depth) waits for the user's decision. */
export function asksInside(call: SubAgentCall): boolean {
  return call.items.some(
    (item) => (item.kind === "tool" && item.part.state === "approval-requested") || (item.kind === "sub-agent" && asksInside(item.call)),
  );
}

// A reply's parts as the bubble shows them: sections, one per speaking agent
// (each data-agent part starts one), each holding its text, reasoning, tool
// calls and hand-overs in order. Pure functions only.
import type { DynamicToolUIPart, ReasoningUIPart } from "ai";
import type { ChatMessage } from "@/lib/client/messages";
import { UI_METADATA_KEY } from "@/lib/protocol/parts-codec";

type UIPart = ChatMessage["parts"][number];

export type TimelineItem =
  | { kind: "text"; key: string; text: string }
  | { kind: "reasoning"; key: string; part: ReasoningUIPart }
  | { kind: "tool"; key: string; part: DynamicToolUIPart }
  | { kind: "handoff"; key: string; from?: string; to: string; reason?: string };

export interface TimelineSection {
  key: string;
  /** The agent that speaks in this section; none for parts written before any data-agent part. */
  agent?: string;
  items: TimelineItem[];
}

export function buildTimeline(parts: ChatMessage["parts"]): TimelineSection[] {
  const sections: TimelineSection[] = [{ key: "s-start", items: [] }];
  parts.forEach((part, index) => {
    const section = sections[sections.length - 1];
    const key = `p${index}`;
    switch (part.type) {
      case "data-agent":
        // The same agent announced again (a new step of its own) goes on in its section.
        if (part.data.name !== section.agent) sections.push({ key: `s${index}`, agent: part.data.name, items: [] });
        break;
      case "data-handoff":
        section.items.push({ kind: "handoff", key, from: section.agent, to: part.data.to, reason: part.data.reason });
        break;
      case "text":
        if (part.text.length > 0) section.items.push({ kind: "text", key, text: part.text });
        break;
      case "reasoning":
        section.items.push({ kind: "reasoning", key: part.id ? `r-${part.id}` : key, part });
        break;
      case "dynamic-tool":
        section.items.push({ kind: "tool", key: `t-${part.toolCallId}`, part });
        break;
      default:
        break; // step-start and anything the app does not produce
    }
  });
  // Sections with nothing to show are left out, except the last one (its agent is about to speak).
  return sections.filter((section, index) => section.items.length > 0 || (index === sections.length - 1 && section.agent !== undefined));
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

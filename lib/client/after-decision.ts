// What the page shows once the server has taken the user's decision on a tool
// call. The reply goes on only when every call of it that asked is decided:
// then the server streams it again from its start (GET /api/threads/:id/stream),
// so the waiting reply makes way for it and nothing shows twice. Until then
// the call shows decided and the reply keeps waiting for the others.
import type { DynamicToolUIPart } from "ai";
import type { ChatMessage } from "@/lib/protocol/chat";

type UIPart = ChatMessage["parts"][number];

export type AfterDecision =
  /** The reply goes on: show `messages` (the waiting reply taken out) and follow the thread's stream. */
  | { follow: true; messages: ChatMessage[] }
  /** Other calls of the reply still wait: show `messages`, the decided call responded. */
  | { follow: false; messages: ChatMessage[] };

const asks = (part: UIPart): part is DynamicToolUIPart & { approval: { id: string } } =>
  part.type === "dynamic-tool" && part.state === "approval-requested" && part.approval !== undefined;

export function afterDecision(messages: ChatMessage[], approvalId: string, decision: { approved: boolean; reason?: string }): AfterDecision {
  const at = messages.findLastIndex((m) => m.role === "assistant" && m.parts.some((p) => asks(p) && p.approval.id === approvalId));
  // Not shown here (drawn again meanwhile): whatever runs is followed, and a page with nothing to follow is drawn again.
  if (at === -1) return { follow: true, messages };
  const reply = messages[at];
  const othersWait = reply.parts.some((p) => asks(p) && p.approval.id !== approvalId);
  if (!othersWait) return { follow: true, messages: messages.filter((_, i) => i !== at) };
  const reason = decision.reason?.trim();
  const parts = reply.parts.map((part) =>
    asks(part) && part.approval.id === approvalId
      ? ({ ...part, state: "approval-responded", approval: { id: approvalId, approved: decision.approved, ...(reason ? { reason } : {}) } } as UIPart)
      : part,
  );
  return { follow: false, messages: messages.map((m, i) => (i === at ? { ...reply, parts } : m)) };
}

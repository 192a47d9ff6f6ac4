// A tool part once the user has decided on its call, in the shape the stored
// reply gives it (lib/protocol/parts-codec.ts toUIParts): the page's live
// reading of a reply that goes on after a decision, and the same reply read
// back, must look and serialize alike, since the page sends its copy back
// under the server's signature.
import type { DynamicToolUIPart } from "ai";
import { denialText } from "@threadline/history/approvals";
import type { ChatDataParts } from "@/lib/protocol/chat";
import { UI_METADATA_KEY } from "@/lib/protocol/parts-codec";

export type ApprovalNews = ChatDataParts["approval"];
export type ApprovalOutcome = ApprovalNews["outcome"];

/**
 * The call `part` as the decision leaves it. Approved: responded, its result
 * still to come (the AI SDK's "approval-responded"). Any other outcome: it
 * never runs (the AI SDK's "output-denied"), with the outcome and the words
 * the model reads kept as the stored reply keeps them.
 */
export function decidedPart(part: DynamicToolUIPart, { id, outcome, reason }: ApprovalNews): DynamicToolUIPart {
  const why = reason !== undefined ? { reason } : {};
  if (outcome === "approved") return { ...part, state: "approval-responded", approval: { id, approved: true, ...why } } as DynamicToolUIPart;
  return {
    ...part,
    state: "output-denied",
    approval: { id, approved: false, ...why },
    callProviderMetadata: { ...part.callProviderMetadata, [UI_METADATA_KEY]: { outcome, error: denialText(outcome, reason) } },
  } as DynamicToolUIPart;
}

/** How a decided call went, as its part says: the outcome the server kept, else what the AI SDK's approval says. */
export function approvalOutcome(part: DynamicToolUIPart): ApprovalOutcome | undefined {
  const kept = part.callProviderMetadata?.[UI_METADATA_KEY]?.outcome;
  if (typeof kept === "string") return kept as ApprovalOutcome;
  if (part.approval?.approved === true) return "approved";
  if (part.approval?.approved === false || part.state === "output-denied") return "denied";
  return undefined;
}

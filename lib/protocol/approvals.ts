// POST /api/threads/:id/approvals/:approvalId: the user's decision on a tool
// call that asked first, and what the server answers. Isomorphic: the route
// checks the body with it, the page sends and reads it.
import { z } from "zod";
import { APPROVAL_OUTCOMES, MAX_APPROVAL_REASON } from "@threadline/history/parts";
import { timeZoneSchema } from "./chat";

/** Which tool calls ask for the user's approval (TOOL_APPROVAL): as each tool declares, every call, or none. */
export const TOOL_APPROVAL_MODES = ["default", "all", "none"] as const;
export type ToolApprovalMode = (typeof TOOL_APPROVAL_MODES)[number];

export const approvalDecisionSchema = z.strictObject({
  approved: z.boolean({ message: "must be true or false" }),
  /** Why; the model reads it with a denial. Blank counts as none. */
  reason: z
    .string({ message: "must be a string" })
    .trim()
    .max(MAX_APPROVAL_REASON, `must be at most ${MAX_APPROVAL_REASON} characters`)
    .optional()
    .transform((reason) => reason || undefined),
  /** The deciding page's IANA time zone: an approved reminder's "5 pm" is the user's. */
  timeZone: timeZoneSchema.optional(),
});

export type ApprovalDecisionRequest = z.input<typeof approvalDecisionSchema>;

/** 202: the decision that stands (a late one is recorded as expired); the reply goes on through GET /api/threads/:id/stream. */
export interface ApprovalDecisionResponse {
  approvalId: string;
  outcome: (typeof APPROVAL_OUTCOMES)[number];
  reason?: string;
}

/** GET /api/threads/:id/reminders: the thread's reminders still to come, soonest first. */
export interface ThreadReminders {
  reminders: { id: string; threadId: string; text: string; dueAt: string; timeZone: string; status: "scheduled" }[];
}

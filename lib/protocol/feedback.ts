// Feedback on a reply version: PUT /api/threads/:id/messages/:messageId/feedback
// sets, changes or clears it; GET /api/threads/:id/feedback reads a thread's
// (the page's buttons); GET /api/feedback?since= lists the owner's (the
// operator's evaluation scripts). Isomorphic: the routes check with it, the
// page sends and reads it. Never part of what a model reads.
import { z } from "zod";
import { cursorParam, feedbackCursor, isStoredTime } from "./cursors";
import { FEEDBACK_REASONS, MAX_FEEDBACK_COMMENT, type FeedbackReason } from "./feedback-reasons";

export { FEEDBACK_REASONS, MAX_FEEDBACK_COMMENT, type FeedbackReason };

const reasons = Object.keys(FEEDBACK_REASONS) as [FeedbackReason, ...FeedbackReason[]];
const reason = z.enum(reasons, { message: `must be one of ${reasons.join(", ")}` });
const comment = z
  .string({ message: "must be a string" })
  .max(MAX_FEEDBACK_COMMENT, `must be at most ${MAX_FEEDBACK_COMMENT} characters`)
  .refine((s) => s.isWellFormed(), "must be valid Unicode text");

export const feedbackRequestSchema = z
  .strictObject({
    /** null clears it. */
    rating: z.enum(["up", "down"], { message: 'must be "up", "down" or null' }).nullable(),
    reason: reason.optional(),
    /** Blank counts as none. */
    comment: z
      .string({ message: "must be a string" })
      .trim()
      .pipe(comment)
      .optional()
      .transform((text) => text || undefined),
  })
  .refine((body) => body.rating !== null || (body.reason === undefined && body.comment === undefined), {
    message: "a reason or a comment needs a rating",
    path: ["rating"],
  });

export type FeedbackRequest = z.input<typeof feedbackRequestSchema>;

/** Feedback as it is stored and read back, and as a thread file carries it. */
export const feedbackSchema = z.strictObject({
  rating: z.enum(["up", "down"], { message: 'must be "up" or "down"' }),
  reason: reason.optional(),
  comment: comment.min(1, "must not be empty").optional(),
  updatedAt: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" }),
});

export type Feedback = z.infer<typeof feedbackSchema>;

/** PUT's answer: the feedback that stands, or null once cleared. */
export interface FeedbackResponse {
  feedback: Feedback | null;
}

/** GET /api/threads/:id/feedback: the thread's feedback by reply version. */
export interface ThreadFeedback {
  feedback: Record<string, Feedback>;
}

/** GET /api/feedback: the owner's feedback changed after `since`, oldest first; `next` is the `cursor` of the page after, null at the end. */
export interface FeedbackList {
  feedback: (Feedback & { threadId: string; messageId: string; threadTitle: string; model: string | null })[];
  next: string | null;
}

export const feedbackListQuerySchema = z.object({
  since: z.iso
    .datetime({ offset: true, message: "must be an ISO 8601 time, e.g. 2026-01-31T00:00:00Z" })
    // zod takes year 0 and any offset, which Postgres refuses.
    .refine((time) => isStoredTime(time, /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))$/i), "must be an ISO 8601 time, e.g. 2026-01-31T00:00:00Z")
    .optional(),
  limit: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1000, "must be at most 1000")
    .default(100),
  /** Where the page before ended: its `next`. */
  cursor: cursorParam(feedbackCursor).optional(),
});

import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { messageIdParam, threadIdParam } from "@/lib/http/params";
import { feedbackRequestSchema, type FeedbackResponse } from "@/lib/protocol/feedback";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** Sets, changes or (rating null) clears the owner's feedback on one reply version; the same body twice changes nothing more. */
export const PUT = route<{ params: Promise<{ id: string; messageId: string }> }>(async (request, { params }) => {
  const { id, messageId } = await params;
  const threadId = threadIdParam(id);
  const message = messageIdParam(messageId);
  const input = await readJson(request, feedbackRequestSchema, 16 * 1024);
  const owner = await app().requireOwner(request);
  return jsonResponse({ feedback: await app().feedback.set(owner, threadId, message, input) } satisfies FeedbackResponse);
});

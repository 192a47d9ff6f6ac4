import { jsonResponse, route } from "@/lib/http/handler";
import { readQuery } from "@/lib/http/query";
import { feedbackListQuerySchema, type FeedbackList } from "@/lib/protocol/feedback";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** The owner's feedback changed after `since`, oldest first, a page at a time (`next` is the next page's `cursor`). */
export const GET = route(async (request) => {
  const query = readQuery(request, feedbackListQuerySchema, ["since", "limit", "cursor"]);
  const owner = await app().requireOwner(request);
  return jsonResponse((await app().feedback.list(owner, query)) satisfies FeedbackList);
});

import { validationError } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { feedbackListQuerySchema, type FeedbackList } from "@/lib/protocol/feedback";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** The owner's feedback changed after `since`, oldest first, a page at a time (`next` is the next page's `cursor`). */
export const GET = route(async (request) => {
  const search = new URL(request.url).searchParams;
  const query = feedbackListQuerySchema.safeParse({
    since: search.get("since") ?? undefined,
    limit: search.get("limit") ?? undefined,
    cursor: search.get("cursor") ?? undefined,
  });
  if (!query.success) throw validationError(query.error);
  const owner = await app().requireOwner(request);
  return jsonResponse((await app().feedback.list(owner, query.data)) satisfies FeedbackList);
});

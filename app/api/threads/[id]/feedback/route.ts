import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import type { ThreadFeedback } from "@/lib/protocol/feedback";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** The thread's feedback by reply version: what the page's buttons show. */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  return jsonResponse({ feedback: await app().feedback.ofThread(owner, id) } satisfies ThreadFeedback);
});

import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** The thread's reminders still to come, soonest first (the sidebar lists them). */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const threadId = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  await app().threads().get(owner, threadId); // 404 for a thread that is not the caller's
  return jsonResponse({ reminders: await app().reminders().scheduled({ owner, threadId }) });
});

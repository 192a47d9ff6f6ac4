import { requestAddress } from "@/lib/http/client-address.mjs";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** "Continue this conversation": the link's snapshot as a new thread of the caller's (source "share"). */
export const POST = route<{ params: Promise<{ shareId: string }> }>(async (request, { params }) => {
  const { shareId } = await params;
  const viewer = await app().requireOwner(request);
  // A copy of a branch, as a fork is: counted as one.
  await app().rateLimits().limitFork(viewer, requestAddress(request));
  const thread = await app().shares().continueAs(viewer, shareId);
  return jsonResponse({ thread: { id: thread.id } }, { status: 201 });
});

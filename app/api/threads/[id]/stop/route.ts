import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** Ends the thread's running generation; what it wrote so far is kept. */
export const POST = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  await app().threads().get(owner, id); // 404 for a thread that is not the caller's
  return jsonResponse({ stopped: await app().runtime().stop(owner, id) }, { status: 202 });
});

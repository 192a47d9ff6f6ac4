import { requireOwner } from "@/lib/auth/session";
import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { getRuntime } from "@/lib/runtime";
import { threads } from "@/lib/threads/service";

export const dynamic = "force-dynamic";

/** Ends the thread's running generation; what it wrote so far is kept. */
export const POST = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await requireOwner(request);
  await threads().get(owner, id); // 404 for a thread that is not the caller's
  return jsonResponse({ stopped: await getRuntime().stop(owner, id) }, { status: 202 });
});

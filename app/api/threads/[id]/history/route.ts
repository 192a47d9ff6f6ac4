import { requireOwner } from "@/lib/auth/session";
import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { signedHistory } from "@/lib/threads/service";

export const dynamic = "force-dynamic";

export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await requireOwner(request);
  return jsonResponse({ messages: await signedHistory(owner, id) });
});

import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import type { ThreadRead } from "@/lib/protocol/threads";

export const dynamic = "force-dynamic";

/**
 * The owner has seen the thread's replies (the chat page shows it). A POST,
 * never a read: a prefetch or a server render must not mark anything seen.
 */
export const POST = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  return jsonResponse((await app().threads().markRead(owner, id)) satisfies ThreadRead);
});

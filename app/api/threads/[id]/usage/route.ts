import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import type { ThreadUsage } from "@/lib/protocol/usage";

export const dynamic = "force-dynamic";

/** What the thread's model calls spent: in total, by agent, by purpose, by model and by reply. */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  return jsonResponse((await app().threadUsage(owner, id)) satisfies ThreadUsage);
});

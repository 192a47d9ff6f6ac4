import { route } from "@/lib/http/handler";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** Revokes one of the caller's links: it answers 410 on every server from now on. */
export const DELETE = route<{ params: Promise<{ shareId: string }> }>(async (request, { params }) => {
  const { shareId } = await params;
  const owner = await app().requireOwner(request);
  await app().shares().revoke(owner, shareId);
  return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
});

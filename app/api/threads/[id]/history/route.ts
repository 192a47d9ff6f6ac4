import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** The flat view: each message's user or assistant text, for clients that show only text. The timeline has every part. */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  return jsonResponse({ messages: await app().threads().flatHistory(owner, id) });
});

import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** Every part of the thread in conversation order: text, reasoning, tool calls and results, hand-overs. */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  return jsonResponse({ parts: await app().threads().timeline(owner, id) });
});

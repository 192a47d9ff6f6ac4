import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { publicOrigin } from "@/lib/http/request-origin";
import { app } from "@/lib/app";
import { createShareSchema } from "@/lib/protocol/share-request";
import type { ShareResponse } from "@/lib/protocol/shares";

export const dynamic = "force-dynamic";

/** A share link to the thread's active branch as it is now (lib/shares/). */
export const POST = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  await app().rateLimits().limitShare(owner);
  const body = await readJson(request, createShareSchema, 4 * 1024);
  const share = await app().shares().create(owner, id, body, publicOrigin(request, app().config.APP_URL));
  return jsonResponse({ share } satisfies ShareResponse, { status: 201 });
});

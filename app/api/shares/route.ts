import { jsonResponse, route } from "@/lib/http/handler";
import { publicOrigin } from "@/lib/http/request-origin";
import { app } from "@/lib/app";
import type { SharesResponse } from "@/lib/protocol/shares";

export const dynamic = "force-dynamic";

/** The caller's share links that are not revoked, newest first. */
export const GET = route(async (request) => {
  const owner = await app().requireOwner(request);
  const shares = await app().shares().list(owner, publicOrigin(request, app().config.APP_URL));
  return jsonResponse({ shares } satisfies SharesResponse);
});

import { route } from "@/lib/http/handler";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { app } from "@/lib/app";
import { fileResponse } from "@/lib/files/file-response";
import { SHARED_CACHE_CONTROL } from "@/lib/shares/shared-headers";

export const dynamic = "force-dynamic";

/** A file the link shows, as its owner holds it; 404 for any file it does not show. */
export const GET = route<{ params: Promise<{ shareId: string; fileId: string }> }>(async (request, { params }) => {
  const { shareId, fileId } = await params;
  await app().rateLimits().limitShareView(requestAddress(request));
  const response = fileResponse(await app().shares().file(shareId, fileId));
  // Anyone's to cache while the link lives, and no longer than a revocation takes to reach them.
  response.headers.set("Cache-Control", SHARED_CACHE_CONTROL);
  return response;
});

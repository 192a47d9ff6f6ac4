import { bodyChunks, refuseDeclaredSize, requireJsonBody } from "@/lib/http/body";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { jsonResponse, route } from "@/lib/http/handler";
import { stateChangeRefusal } from "@/lib/http/request-origin";
import { app } from "@/lib/app";
import { limits } from "@/lib/limits";
import { fileTooLarge, importThreadFile } from "@/lib/threads/import-file";
import type { ThreadResponse } from "@/lib/protocol/threads";

export const dynamic = "force-dynamic";

/**
 * A new thread of the caller's from a file GET /api/threads/:id/export?format=json wrote: every version, new ids.
 * Who asks and how large the body says it is are checked before any of it is read; then it is read as it
 * arrives, within the thread file's limits (lib/threads/import-file.ts).
 */
export const POST = route(async (request) => {
  // proxy.ts skips this route (it would buffer and cut a big file): the origin and body checks it would make are made here.
  const refusal = stateChangeRefusal(request.method, request.headers, request.url);
  if (refusal) throw refusal;
  requireJsonBody(request);
  // Who asks, and whether they may, before the body is read.
  const owner = await app().requireOwner(request);
  await app().rateLimits().limitImport(owner, requestAddress(request));
  refuseDeclaredSize(request, limits.maxThreadFileBytes, fileTooLarge);
  const thread = await importThreadFile(app().threads(), owner, bodyChunks(request, limits.maxThreadFileBytes, fileTooLarge), app().attachmentMaxBytes);
  return jsonResponse({ thread } satisfies ThreadResponse, { status: 201 });
});

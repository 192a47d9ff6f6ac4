import { readJson } from "@/lib/http/body";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { limits } from "@/lib/limits";
import { threadExportSchema } from "@/lib/protocol/thread-export";
import type { ThreadResponse } from "@/lib/protocol/threads";

export const dynamic = "force-dynamic";

/** A new thread of the caller's from a file GET /api/threads/:id/export?format=json wrote: every version, new ids. */
export const POST = route(async (request) => {
  // Who asks, and whether they may, before the body is read.
  const owner = await app.requireOwner(request);
  await app.rateLimits().limitImport(owner, requestAddress(request));
  const file = await readJson(request, threadExportSchema, limits.maxImportBytes);
  const thread = await app.threads().import(owner, file);
  return jsonResponse({ thread } satisfies ThreadResponse, { status: 201 });
});

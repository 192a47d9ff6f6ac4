import { readJson } from "@/lib/http/body";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { memoryFileSchema } from "@/lib/protocol/memory-request";
import type { MemoryImportResponse } from "@/lib/protocol/memory";

export const dynamic = "force-dynamic";

/** A memory file's memories added to the caller's, all or none: counted as an import (RATE_LIMIT_IMPORTS_PER_HOUR). */
export const POST = route(async (request) => {
  const owner = await app().requireOwner(request);
  await app().rateLimits().limitImport(owner, requestAddress(request));
  const { memories } = await readJson(request, memoryFileSchema, 4 * 1024 * 1024);
  return jsonResponse((await app().memories().importAll(owner, memories)) satisfies MemoryImportResponse, { status: 201 });
});

import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { memorySettingsSchema } from "@/lib/protocol/memory-request";
import type { MemorySettingsResponse } from "@/lib/protocol/memory";

export const dynamic = "force-dynamic";

/** Turns the caller's memory on or off. */
export const PUT = route(async (request) => {
  const owner = await app().requireOwner(request);
  const { enabled } = await readJson(request, memorySettingsSchema, 1024);
  return jsonResponse({ enabled: await app().memories().setEnabled(owner, enabled) } satisfies MemorySettingsResponse);
});

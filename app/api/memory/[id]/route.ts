import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { memoryIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { memoryTextSchema } from "@/lib/protocol/memory-request";
import type { MemoryResponse } from "@/lib/protocol/memory";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** The caller's memory in new words. */
export const PATCH = route<Context>(async (request, { params }) => {
  const id = memoryIdParam((await params).id);
  const owner = await app().requireOwner(request);
  const { text } = await readJson(request, memoryTextSchema, 4 * 1024);
  return jsonResponse({ memory: await app().memories().edit(owner, id, text) } satisfies MemoryResponse);
});

/** Deletes the caller's memory for good: it never comes back, and its message does not teach it again. */
export const DELETE = route<Context>(async (request, { params }) => {
  const id = memoryIdParam((await params).id);
  const owner = await app().requireOwner(request);
  await app().memories().remove(owner, id);
  return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
});

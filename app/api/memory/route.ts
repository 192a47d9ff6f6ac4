import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { AppError } from "@threadline/history/errors";
import { memoryTextSchema } from "@/lib/protocol/memory-request";
import type { MemoriesResponse, MemoryResponse } from "@/lib/protocol/memory";

export const dynamic = "force-dynamic";

/** The caller's memories, newest first; `?q=`: those sharing a word with it, best match first. */
export const GET = route(async (request) => {
  const owner = await app().requireOwner(request);
  const query = new URL(request.url).searchParams.get("q") ?? undefined;
  if (query !== undefined && query.length > 200) throw new AppError("bad_request:validation", "q: must be at most 200 characters.");
  return jsonResponse((await app().memories().list(owner, query)) satisfies MemoriesResponse);
});

/** A memory the caller adds by hand; 201, naming any the count bound pushed out. */
export const POST = route(async (request) => {
  const owner = await app().requireOwner(request);
  const { text } = await readJson(request, memoryTextSchema, 4 * 1024);
  return jsonResponse((await app().memories().add(owner, text)) satisfies MemoryResponse, { status: 201 });
});

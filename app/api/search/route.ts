import { validationError } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { searchCursor } from "@/lib/protocol/cursors";
import type { SearchPage } from "@/lib/protocol/threads";
import { searchQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** The owner's threads matching `q` by title or by what was said, best first. */
export const GET = route(async (request) => {
  const params = new URL(request.url).searchParams;
  const query = searchQuerySchema.safeParse({
    q: params.get("q") ?? undefined,
    limit: params.get("limit") ?? undefined,
    cursor: params.get("cursor") ?? undefined,
  });
  if (!query.success) throw validationError(query.error);
  const owner = await app().requireOwner(request);
  const { results, nextOffset } = await app().threads().search(owner, query.data.q, { limit: query.data.limit, offset: query.data.cursor });
  return jsonResponse({ results, nextCursor: nextOffset === null ? null : searchCursor.encode(nextOffset) } satisfies SearchPage);
});

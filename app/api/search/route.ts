import { jsonResponse, route } from "@/lib/http/handler";
import { readQuery } from "@/lib/http/query";
import { app } from "@/lib/app";
import { searchCursor } from "@/lib/protocol/cursors";
import type { SearchPage } from "@/lib/protocol/threads";
import { searchQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** The owner's threads matching `q` by title or by what was said, best first. */
export const GET = route(async (request) => {
  const query = readQuery(request, searchQuerySchema, ["q", "limit", "cursor"]);
  const owner = await app().requireOwner(request);
  const { results, nextOffset } = await app().threads().search(owner, query.q, { limit: query.limit, offset: query.cursor });
  return jsonResponse({ results, nextCursor: nextOffset === null ? null : searchCursor.encode(nextOffset) } satisfies SearchPage);
});

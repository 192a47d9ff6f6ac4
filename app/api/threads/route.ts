import { jsonResponse, route } from "@/lib/http/handler";
import { readQuery } from "@/lib/http/query";
import { app } from "@/lib/app";
import type { ThreadPage } from "@/lib/protocol/threads";
import { listThreadsQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

export const GET = route(async (request) => {
  const query = readQuery(request, listThreadsQuerySchema, ["limit", "cursor", "source"]);
  const owner = await app().requireOwner(request);
  return jsonResponse((await app().threads().list(owner, query)) satisfies ThreadPage);
});

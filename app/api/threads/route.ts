import { validationError } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import type { ThreadPage } from "@/lib/protocol/threads";
import { listThreadsQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

export const GET = route(async (request) => {
  const params = new URL(request.url).searchParams;
  const query = listThreadsQuerySchema.safeParse({
    limit: params.get("limit") ?? undefined,
    cursor: params.get("cursor") ?? undefined,
    source: params.get("source") ?? undefined,
  });
  if (!query.success) throw validationError(query.error);
  const owner = await app().requireOwner(request);
  return jsonResponse((await app().threads().list(owner, query.data)) satisfies ThreadPage);
});

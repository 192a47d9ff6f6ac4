import { readJson } from "@/lib/http/body";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import type { ThreadResponse } from "@/lib/protocol/threads";
import { forkThreadSchema } from "./schema";

export const dynamic = "force-dynamic";

/** A new thread holding this one's active path up to and including `messageId`, titled "<title> (fork)". */
export const POST = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  // Who asks, and whether they may, before the body is read.
  const owner = await app().requireOwner(request);
  await app().rateLimits().limitFork(owner, requestAddress(request));
  const { messageId } = await readJson(request, forkThreadSchema, 16 * 1024);
  const thread = await app().threads().fork(owner, id, messageId);
  return jsonResponse({ thread } satisfies ThreadResponse, { status: 201 });
});

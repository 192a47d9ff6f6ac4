import { jsonResponse, route } from "@/lib/http/handler";
import { readQuery } from "@/lib/http/query";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { signedPage } from "@/lib/threads/signed-page";
import { messagesCursor } from "@/lib/protocol/cursors";
import type { MessagesPage } from "@/lib/protocol/threads";
import { messagesQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * A page of the thread: the newest `limit` messages before `cursor` (of the
 * whole thread when there is none), oldest first, each with every part and its
 * signature, and the cursor of the page before them (null at the thread's start).
 */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const query = readQuery(request, messagesQuerySchema, ["limit", "cursor"]);
  const owner = await app().requireOwner(request);
  const page = await signedPage(app().threads(), app().sessionSecret, owner, id, { before: query.cursor, limit: query.limit });
  return jsonResponse({ messages: page.messages, nextCursor: page.olderBefore === null ? null : messagesCursor.encode(page.olderBefore) } satisfies MessagesPage);
});

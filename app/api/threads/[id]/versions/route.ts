import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { signedPage } from "@/lib/threads/signed-page";
import { messagesCursor } from "@/lib/protocol/cursors";
import { MESSAGES_PAGE, type SelectedVersion, type VersionsPage } from "@/lib/protocol/threads";
import { selectVersionSchema } from "./schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** Each message of the thread's active path that has other versions, and which of them it is. */
export const GET = route<Context>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  return jsonResponse({ versions: await app().threads().versions(owner, id) } satisfies VersionsPage);
});

/**
 * Switches the thread to another version of a message. The answer holds the
 * thread's latest page along the new path, signed as GET messages signs it,
 * so the page redraws without a second request.
 */
export const POST = route<Context>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const { messageId } = await readJson(request, selectVersionSchema, 4 * 1024);
  const owner = await app().requireOwner(request);
  const threads = app().threads();
  await threads.selectVersion(owner, id, messageId);
  const [versions, page] = await Promise.all([
    threads.versions(owner, id),
    signedPage(threads, app().sessionSecret, owner, id, { limit: MESSAGES_PAGE }),
  ]);
  return jsonResponse({
    versions,
    messages: page.messages,
    nextCursor: page.olderBefore === null ? null : messagesCursor.encode(page.olderBefore),
  } satisfies SelectedVersion);
});

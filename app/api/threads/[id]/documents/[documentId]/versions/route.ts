import { AppError } from "@threadline/history/errors";
import { isUuid } from "@threadline/history/uuid";
import { jsonResponse, route } from "@/lib/http/handler";
import { readQuery } from "@/lib/http/query";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { documentVersionsQuerySchema, type DocumentVersionsPage } from "@/lib/protocol/documents";

export const dynamic = "force-dynamic";

/**
 * A document's versions on the thread's active path, newest first, `limit`
 * of them before `cursor` (the list's `olderCursor`, or the page before's
 * `nextCursor`; none: from the latest), and the cursor of the page after.
 */
export const GET = route<{ params: Promise<{ id: string; documentId: string }> }>(async (request, { params }) => {
  const { id, documentId } = await params;
  const threadId = threadIdParam(id);
  if (!isUuid(documentId)) throw new AppError("bad_request:document_id", "The document id must be a UUID.");
  const query = readQuery(request, documentVersionsQuerySchema, ["cursor", "limit"]);
  const owner = await app().requireOwner(request);
  const page = await app().documents().versions(owner, threadId, documentId.toLowerCase(), { before: query.cursor ?? null, limit: query.limit });
  return jsonResponse(page satisfies DocumentVersionsPage);
});

import { AppError } from "@threadline/history/errors";
import { isUuid } from "@threadline/history/uuid";
import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { documentEditSchema, MAX_DOCUMENT_CHARS } from "@/lib/protocol/documents";

export const dynamic = "force-dynamic";

/**
 * The owner's own version of a document, written over the version they
 * edited: 409 if a newer one came meanwhile, 413 once the document's versions
 * would hold more than the server keeps for one, 429 past the edit rate limit.
 * Answers the document as the list shows it.
 */
export const PUT = route<{ params: Promise<{ id: string; documentId: string }> }>(async (request, { params }) => {
  const { id, documentId: rawId } = await params;
  const threadId = threadIdParam(id);
  if (!isUuid(rawId)) throw new AppError("bad_request:document_id", "The document id must be a UUID.");
  const documentId = rawId.toLowerCase();
  const edit = await readJson(request, documentEditSchema, 4 * MAX_DOCUMENT_CHARS + 1024);
  const owner = await app().requireOwner(request);
  await app().rateLimits().limitDocumentEdit(owner);
  const store = app().documents();
  await store.edit(owner, threadId, documentId, edit.content, edit.basedOn);
  const document = (await store.list(owner, threadId)).find((d) => d.id === documentId);
  return jsonResponse({ document });
});

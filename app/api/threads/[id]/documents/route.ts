import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import type { DocumentsResponse } from "@/lib/protocol/documents";

export const dynamic = "force-dynamic";

/**
 * The thread's documents, oldest first, each with its latest version on the
 * thread's active path, how many it has there and the cursor of the older
 * ones (GET …/documents/:documentId/versions).
 */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const threadId = threadIdParam((await params).id);
  const owner = await app().requireOwner(request);
  return jsonResponse({ documents: await app().documents().list(owner, threadId) } satisfies DocumentsResponse);
});

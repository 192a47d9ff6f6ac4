import { AppError } from "@threadline/history/errors";
import { isUuid } from "@threadline/history/uuid";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import type { FileTextState } from "@/lib/protocol/files";

export const dynamic = "force-dynamic";

/**
 * Where reading the caller's PDF's text is ({ textState }: null for a file
 * that is not a PDF), which the composer follows while it is 'pending'.
 * Anyone else's file, or none, is a 404.
 */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const { id } = await params;
  const owner = await app().requireOwner(request);
  const state = isUuid(id) ? await app().pdfText().state(owner, id.toLowerCase()) : undefined;
  if (state === undefined) throw new AppError("not_found:file", "There is no such file of yours.");
  // A file that is still pending may take over from a server that died reading it.
  if (state === "pending") app().pdfExtractions().kick();
  return jsonResponse({ textState: state } satisfies { textState: FileTextState | null });
});

import { AppError } from "@threadline/history/errors";
import { isUuid } from "@threadline/history/uuid";
import { route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { fileResponse } from "@/lib/files/file-response";

export const dynamic = "force-dynamic";

/** The caller's file, as they attached it; anyone else's, or none, is a 404. */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const { id } = await params;
  const owner = await app().requireOwner(request);
  const file = isUuid(id) ? await app().files().download(owner, id.toLowerCase()) : undefined;
  if (!file) throw new AppError("not_found:file", "There is no such file of yours.");
  return fileResponse(file);
});

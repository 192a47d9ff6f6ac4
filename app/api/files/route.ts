import { bodyChunks } from "@/lib/http/body";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { jsonResponse, route } from "@/lib/http/handler";
import { uploadRefusal } from "@/lib/http/request-origin";
import { app } from "@/lib/app";
import { FILE_NAME_HEADER, type UploadedFile } from "@/lib/protocol/files";
import { fileTooLarge, storeUpload, uploadName } from "@/lib/files/upload";

export const dynamic = "force-dynamic";

/**
 * One file, its bytes the body (any declared type: the bytes decide) and its
 * name in X-File-Name: stored as the caller's before the message that
 * carries it is sent. Who asks, the name and the declared size are checked
 * before the body is read; then it is read as it arrives, never past
 * ATTACHMENT_MAX_MB.
 */
export const POST = route(async (request) => {
  // proxy.ts skips this route (it would buffer and cut a big file): the origin check it would make is made here.
  const refusal = uploadRefusal(request.headers, request.url, FILE_NAME_HEADER);
  if (refusal) throw refusal;
  const owner = await app().requireOwner(request);
  await app().rateLimits().limitUpload(owner, requestAddress(request));
  const name = uploadName(request.headers.get(FILE_NAME_HEADER));
  const tooLarge = fileTooLarge(app().attachmentMaxBytes);
  const file = await storeUpload(app().files(), owner, name, bodyChunks(request, app().attachmentMaxBytes, tooLarge));
  return jsonResponse(file satisfies UploadedFile, { status: 201 });
});

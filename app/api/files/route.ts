import { bodyChunks } from "@/lib/http/body";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { jsonResponse, route } from "@/lib/http/handler";
import { uploadRefusal } from "@/lib/http/request-origin";
import { app } from "@/lib/app";
import { FILE_NAME_HEADER, type UploadedFile } from "@/lib/protocol/files";
import { declaredLength, fileTooLarge, refuseOverQuota, storeUpload, uploadName } from "@/lib/files/upload";

export const dynamic = "force-dynamic";

/**
 * One file, its bytes the body (any declared type: the bytes decide) and its
 * name in X-File-Name: stored as the caller's before the message that
 * carries it is sent. Who asks, the name, the declared size and the room
 * left of the caller's STORAGE_QUOTA_MB are checked before the body is read;
 * then it is read as it arrives, never past ATTACHMENT_MAX_MB. A PDF's text
 * is read after this answers (its textState says where that is).
 */
export const POST = route(async (request) => {
  // proxy.ts skips this route (it would buffer and cut a big file): the origin check it would make is made here.
  const refusal = uploadRefusal(request.headers, request.url, FILE_NAME_HEADER);
  if (refusal) throw refusal;
  const owner = await app().requireOwner(request);
  await app().rateLimits().limitUpload(owner, requestAddress(request));
  const name = uploadName(request.headers.get(FILE_NAME_HEADER));
  const uploads = app().uploads();
  const declared = declaredLength(request.headers);
  await refuseOverQuota(uploads, owner, declared);
  const chunks = bodyChunks(request, uploads.maxBytes, fileTooLarge(uploads.maxBytes));
  const file = await storeUpload(uploads, owner, name, chunks, declared);
  return jsonResponse(file satisfies UploadedFile, { status: 201 });
});

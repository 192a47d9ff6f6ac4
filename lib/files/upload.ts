import "server-only";
import { createHash } from "node:crypto";
import { AppError } from "@threadline/history/errors";
import { fileNameSchema } from "@threadline/history/parts";
import { fileSizeText, type UploadedFile } from "@/lib/protocol/files";
import { fileTypeOf } from "./file-type";
import type { FileStore } from "./file-store";
import { pdfText } from "./pdf-text";

/** The upload's refusal when it is over the size limit, before or while it arrives. */
export const fileTooLarge = (maxBytes: number) => () =>
  new AppError("payload_too_large:file", `The file is larger than ${fileSizeText(maxBytes)}, the most one file may be.`);

/** The name the upload's header gives (URI-encoded), checked; a bad one is a 400. */
export function uploadName(header: string | null): string {
  if (header === null) throw new AppError("bad_request:file_name", "Name the file in the X-File-Name header (URI-encoded).");
  let name: string;
  try {
    name = decodeURIComponent(header);
  } catch {
    throw new AppError("bad_request:file_name", "X-File-Name must be the file's name, URI-encoded.");
  }
  const checked = fileNameSchema.safeParse(name);
  if (!checked.success) throw new AppError("bad_request:file_name", `X-File-Name ${checked.error.issues[0].message}.`);
  return checked.data;
}

/**
 * Stores an upload as it arrives (`chunks` stops it past the size limit):
 * typed by its bytes, a PDF's text taken out once, stored once per content.
 * Refused with a clear error, nothing stored, when it is empty or not a type
 * that may be attached.
 */
export async function storeUpload(store: FileStore, owner: string, name: string, chunks: AsyncIterable<Uint8Array>): Promise<UploadedFile> {
  const hash = createHash("sha256");
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) {
    hash.update(chunk);
    parts.push(chunk);
  }
  const content = Buffer.concat(parts);
  if (content.length === 0) throw new AppError("bad_request:file", `${name} is empty.`);
  const verdict = await fileTypeOf(content, name);
  if ("refused" in verdict) throw new AppError("unsupported_media_type:file", verdict.refused);
  const extractedText = verdict.mediaType === "application/pdf" ? await pdfText(content) : null;
  return store.save(owner, { name, mediaType: verdict.mediaType, content, sha256: hash.digest(), extractedText });
}

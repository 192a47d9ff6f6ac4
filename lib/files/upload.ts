import "server-only";
import { createHash } from "node:crypto";
import { AppError } from "@threadline/history/errors";
import { fileNameSchema } from "@threadline/history/parts";
import { fileSizeText, type UploadedFile } from "@/lib/protocol/files";
import { fileTypeOf } from "./file-type";
import { overQuota, type FileStore } from "./file-store";
import type { PdfExtractions } from "./pdf-extractions";
import { UploadBytes } from "./upload-bytes";

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

export interface UploadDeps {
  files: FileStore;
  /** STORAGE_QUOTA_MB in bytes; undefined: no quota. */
  quotaBytes: number | undefined;
  maxBytes: number;
  extractions: PdfExtractions;
}

/** The body's declared length (Content-Length), when it gives one. */
export function declaredLength(headers: Headers): number | undefined {
  const declared = Number(headers.get("content-length") ?? NaN);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

/**
 * Refuses an upload that says it is larger than the room the owner has left
 * (STORAGE_QUOTA_MB), before a byte of it is read. The store checks again,
 * atomically, with the bytes that came (FileStore.save).
 */
export async function refuseOverQuota({ files, quotaBytes }: UploadDeps, owner: string, declared: number | undefined): Promise<void> {
  if (quotaBytes === undefined || declared === undefined) return;
  const used = await files.used(owner);
  if (used + declared > quotaBytes) throw overQuota(used, quotaBytes, declared);
}

/**
 * Stores an upload as it arrives (`chunks` stops it past the size limit),
 * its bytes held once: typed by its bytes, stored once per content within
 * the owner's quota. A PDF's text is not read here: the upload answers at
 * once with its text 'pending', and this server starts reading it in a
 * worker thread (./pdf-extractions.ts). Refused with a clear error, nothing
 * stored, when it is empty or not a type that may be attached.
 */
export async function storeUpload(
  deps: UploadDeps,
  owner: string,
  name: string,
  chunks: AsyncIterable<Uint8Array>,
  declared: number | undefined,
): Promise<UploadedFile> {
  const hash = createHash("sha256");
  const received = new UploadBytes(declared, deps.maxBytes);
  for await (const chunk of chunks) {
    hash.update(chunk);
    received.add(chunk);
  }
  const content = received.bytes();
  if (content.length === 0) throw new AppError("bad_request:file", `${name} is empty.`);
  const verdict = await fileTypeOf(content, name);
  if ("refused" in verdict) throw new AppError("unsupported_media_type:file", verdict.refused);
  const file = await deps.files.save(owner, { name, mediaType: verdict.mediaType, content, sha256: hash.digest() }, deps.quotaBytes);
  if (file.textState === "pending") deps.extractions.kick();
  return file;
}

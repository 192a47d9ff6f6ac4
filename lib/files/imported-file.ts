import "server-only";
import { createHash } from "node:crypto";
import type { ExportedFile } from "@/lib/protocol/thread-export";
import { fileSizeText } from "@/lib/protocol/files";
import { fileTypeOf } from "./file-type";

/** A file of a thread file, its bytes decoded and checked as an upload's are. */
export interface DecodedFile {
  content: Buffer;
  sha256: Buffer;
}

/**
 * A thread file's file, decoded, or what is wrong with it: its bytes must be
 * as many as it says, within ATTACHMENT_MAX_MB, and of the type it says (by
 * the bytes, as an upload is typed). The file's word is never taken for it.
 */
export async function decodeImportedFile(file: ExportedFile, maxBytes: number): Promise<DecodedFile | { refused: string }> {
  const content = Buffer.from(file.data, "base64");
  if (content.length !== file.size) return { refused: `holds ${content.length} bytes, not the ${file.size} its size says` };
  if (content.length > maxBytes) return { refused: `is larger than ${fileSizeText(maxBytes)}, the most one file may be here` };
  const verdict = await fileTypeOf(content, file.name);
  if ("refused" in verdict) return { refused: verdict.refused };
  if (verdict.mediaType !== file.mediaType) return { refused: `is ${verdict.mediaType} by its bytes, not the ${file.mediaType} it says` };
  return { content, sha256: createHash("sha256").update(content).digest() };
}

// Files in and out of a conversation, as the wire carries them: what
// POST /api/files answers, how a chat message names the files it carries,
// and how a file's size reads. Isomorphic: zod and types only. The bytes
// go up before the message (never inside the chat request) and come back
// from GET /api/files/:id.
import { z } from "zod";
import { fileNameSchema, FILE_MEDIA_TYPES, type FileMediaType } from "@threadline/history/parts";
import { limits } from "@/lib/limits";

export { FILE_MEDIA_TYPES, type FileMediaType };

/** The header an upload names its file in (URI-encoded: a header is Latin-1). */
export const FILE_NAME_HEADER = "X-File-Name";

/** A stored upload, as POST /api/files answers: what its bytes were found to be. */
export interface UploadedFile {
  id: string;
  name: string;
  mediaType: FileMediaType;
  size: number;
}

/** The files a chat message carries: uploads of the sender's, by id; the name each goes by in the message (its upload's when unset). */
export const messageFilesSchema = z
  .array(z.object({ id: z.uuid({ message: "must be a file's id, as POST /api/files answered" }), name: fileNameSchema.optional() }), {
    message: "must be an array of files",
  })
  .max(limits.maxFilesPerMessage, `must hold at most ${limits.maxFilesPerMessage} files`)
  .refine((files) => new Set(files.map((file) => file.id)).size === files.length, "must name each file once");

/** "1.2 MB", "340 KB", "12 bytes". */
export function fileSizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** What a file's type is called where a person reads it. */
export const FILE_KIND_NAMES: Record<FileMediaType, string> = {
  "image/png": "PNG image",
  "image/jpeg": "JPEG image",
  "image/webp": "WebP image",
  "image/gif": "GIF image",
  "text/plain": "text",
  "text/markdown": "Markdown",
  "text/csv": "CSV",
  "application/json": "JSON",
  "application/pdf": "PDF",
};

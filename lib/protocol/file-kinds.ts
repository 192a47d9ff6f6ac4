// What the page needs of files without the wire's checks: the upload's
// header and answer, and how a file's size and kind read. No zod here: the
// page imports it, and zod's schemas would come with it (lib/protocol/files.ts
// checks the wire and re-exports these).
import type { FileMediaType } from "@threadline/history/parts";

/** The header an upload names its file in (URI-encoded: a header is Latin-1). */
export const FILE_NAME_HEADER = "X-File-Name";

/**
 * Where reading a PDF's text is: it is read after the upload answers, and a
 * model is given it once 'done'; 'failed': past the limits on what is read
 * of a PDF, the model is told only that its text could not be read.
 */
export type FileTextState = "pending" | "done" | "failed";

/** A stored upload, as POST /api/files answers: what its bytes were found to be. */
export interface UploadedFile {
  id: string;
  name: string;
  mediaType: FileMediaType;
  size: number;
  /** A PDF's only (GET /api/files/:id/text follows it). */
  textState?: FileTextState;
}

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

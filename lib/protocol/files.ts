// Files in and out of a conversation, as the wire carries them: what
// POST /api/files answers and how a chat message names the files it
// carries (what the page needs without zod is in ./file-kinds). The bytes
// go up before the message (never inside the chat request) and come back
// from GET /api/files/:id.
import { z } from "zod";
import { fileNameSchema, FILE_MEDIA_TYPES, type FileMediaType } from "@threadline/history/parts";
import { limits } from "@/lib/limits";

export { FILE_MEDIA_TYPES, type FileMediaType };
export { FILE_KIND_NAMES, FILE_NAME_HEADER, fileSizeText, type FileTextState, type UploadedFile } from "./file-kinds";

/** The files a chat message carries: uploads of the sender's, by id; the name each goes by in the message (its upload's when unset). */
export const messageFilesSchema = z
  .array(z.object({ id: z.uuid({ message: "must be a file's id, as POST /api/files answered" }), name: fileNameSchema.optional() }), {
    message: "must be an array of files",
  })
  .max(limits.maxFilesPerMessage, `must hold at most ${limits.maxFilesPerMessage} files`)
  .refine((files) => new Set(files.map((file) => file.id)).size === files.length, "must name each file once");

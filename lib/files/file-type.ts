import "server-only";
import { fileTypeFromBuffer } from "file-type";
import type { FileMediaType } from "@threadline/history/parts";

// What a file is, decided by its bytes. The name and the type the browser
// declared decide nothing: a PNG named .pdf is a PNG, and a script named
// .png is refused. Binary formats are known by their signatures (file-type,
// a well-kept reader of them); anything else must be valid UTF-8 text, whose
// kind (plain, Markdown, CSV, JSON) its name may then tell, JSON only when it
// parses.

const BINARY: Record<string, FileMediaType> = {
  "image/png": "image/png",
  "image/jpeg": "image/jpeg",
  "image/webp": "image/webp",
  "image/gif": "image/gif",
  "application/pdf": "application/pdf",
};

/** Names whose extension promises a binary format: text under such a name is not what it says. */
const BINARY_EXTENSIONS = new Set(["png", "jpg", "jpeg", "webp", "gif", "pdf", "bmp", "tif", "tiff", "ico", "heic", "avif", "svg"]);

const TEXT_BY_EXTENSION: Record<string, FileMediaType> = {
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  json: "application/json",
};

/** What the types accepted are called in an error. */
export const ACCEPTED_TYPES_TEXT = "PNG, JPEG, WebP or GIF images, text, Markdown, CSV, JSON or PDF";

export type FileTypeVerdict = { mediaType: FileMediaType } | { refused: string };

const extensionOf = (name: string) => (name.includes(".") ? name.slice(name.lastIndexOf(".") + 1).toLowerCase() : "");

/** The file's type, from its bytes (and, for text, its name), or why it is refused. */
export async function fileTypeOf(bytes: Uint8Array, name: string): Promise<FileTypeVerdict> {
  const found = await fileTypeFromBuffer(bytes);
  if (found) {
    const mediaType = BINARY[found.mime];
    return mediaType ? { mediaType } : { refused: `${name} is a ${found.ext.toUpperCase()} file; only ${ACCEPTED_TYPES_TEXT} can be attached.` };
  }
  const text = decodeText(bytes);
  if (text === undefined) return { refused: `${name} is not a type that can be attached: only ${ACCEPTED_TYPES_TEXT}.` };
  const extension = extensionOf(name);
  if (BINARY_EXTENSIONS.has(extension)) {
    return { refused: `${name} is named as a .${extension} file, but its bytes are text: it was not attached.` };
  }
  const mediaType = TEXT_BY_EXTENSION[extension] ?? "text/plain";
  if (mediaType === "application/json" && !parses(text)) return { refused: `${name} is named as JSON but is not valid JSON.` };
  return { mediaType };
}

/** The bytes as text, when they are UTF-8 with no NUL (a binary format file-type does not know has them). */
function decodeText(bytes: Uint8Array): string | undefined {
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return text.includes("\u0000") ? undefined : text;
  } catch {
    return undefined;
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether a file of this type is an image (a model that sees images is given its pixels). */
export const isImage = (mediaType: string) => mediaType.startsWith("image/");

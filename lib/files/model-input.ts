import "server-only";
import { fileLine, type FileInput } from "@/lib/protocol/parts-codec";
import type { FileContent } from "./file-store";
import { isImage } from "./file-type";

/** The most of one file's text a model is given; the rest is said to be cut. */
export const MAX_FILE_TEXT_CHARS = 100_000;

/** What a model is told of a PDF whose text was not read: too big or too costly to read, or still being read. */
export const PDF_TEXT_NOT_READ = "a PDF whose text could not be read within this server's limits, so only its name is given";
export const PDF_TEXT_NOT_READY = "a PDF whose text is still being read, so only its name is given";

/**
 * What a model is given for each attached file, from their stored contents:
 * an image's pixels when the model sees images (else a line that says it
 * cannot), the text of a text file or a PDF, cut at MAX_FILE_TEXT_CHARS.
 * Every file is first named by its line, so the model knows what it holds.
 */
export function fileInputFrom(contents: ReadonlyMap<string, FileContent>, seesImages: boolean): FileInput {
  return (part) => {
    const content = contents.get(part.fileId);
    if (!content) return [{ type: "text", text: fileLine(part, "it is no longer stored") }];
    if (isImage(part.mediaType)) {
      if (!seesImages || !content.content) return [{ type: "text", text: fileLine(part, "this model cannot see images, so only its name is given") }];
      return [
        { type: "text", text: fileLine(part) },
        { type: "image", image: content.content, mediaType: part.mediaType },
      ];
    }
    if (content.textState === "failed") return [{ type: "text", text: fileLine(part, PDF_TEXT_NOT_READ) }];
    if (content.textState === "pending") return [{ type: "text", text: fileLine(part, PDF_TEXT_NOT_READY) }];
    const text = part.mediaType === "application/pdf" ? content.extractedText : (content.content?.toString("utf8") ?? null);
    if (text === null) return [{ type: "text", text: fileLine(part, "no text could be read from it") }];
    const cut = text.length > MAX_FILE_TEXT_CHARS;
    const body = cut ? text.slice(0, MAX_FILE_TEXT_CHARS) : text;
    const note = cut ? `\n[The file goes on: only its first ${MAX_FILE_TEXT_CHARS.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters are given.]` : "";
    return [{ type: "text", text: `${fileLine(part)}\n${body}${note}` }];
  };
}

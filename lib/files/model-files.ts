import "server-only";
import type { FilePart } from "@threadline/history/parts";
import type { FileInput } from "@/lib/protocol/parts-codec";
import type { FileStore } from "./file-store";
import { isImage } from "./file-type";
import { fileInputFrom } from "./model-input";
import type { PdfExtractions } from "./pdf-extractions";
import type { PdfTextStore } from "./pdf-text-store";

/** How often a turn looks whether the PDFs it waits for have been read. */
const WAIT_STEP_MS = 100;

export interface ModelFilesDeps {
  files: FileStore;
  pdfText: PdfTextStore;
  extractions: PdfExtractions;
}

/**
 * What a model is given for the files a turn sends it, read once for the
 * turn: only the bytes it takes. An image's for a model that sees images, a
 * text file's; never a PDF's (its text is stored), nor those of files in
 * messages outside the model's window (the turn hands in only the files of
 * the messages it sends). A PDF whose text is still being read is waited
 * for, here or on any server, up to the longest a read may take.
 */
export async function modelFiles(deps: ModelFilesDeps, owner: string, files: FilePart[], seesImages: boolean): Promise<FileInput> {
  await textOfPdfs(deps, owner, files);
  const withBytes = files.filter((file) => (isImage(file.mediaType) ? seesImages : file.mediaType !== "application/pdf")).map((file) => file.fileId);
  const contents = await deps.files.contents(owner, files.map((file) => file.fileId), withBytes);
  return fileInputFrom(contents, seesImages);
}

/** Waits, bounded, until none of the PDFs among `files` is pending, kicking this server's reader meanwhile. */
async function textOfPdfs({ pdfText, extractions }: ModelFilesDeps, owner: string, files: FilePart[]): Promise<void> {
  const pdfs = [...new Set(files.filter((file) => file.mediaType === "application/pdf").map((file) => file.fileId))];
  if (pdfs.length === 0) return;
  const deadline = Date.now() + extractions.longestWaitMs;
  for (let pending = await pdfText.pending(owner, pdfs); pending.length > 0 && Date.now() < deadline; pending = await pdfText.pending(owner, pending)) {
    extractions.kick();
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
}

import "server-only";

/** The most of a PDF's text kept for a model: about a long book's worth. */
export const MAX_PDF_TEXT_CHARS = 1_000_000;

/**
 * A PDF's text, with unpdf (PDF.js built to run on a server without a
 * canvas), loaded on the first PDF only; null when the file holds none (a
 * scan) or cannot be read.
 */
export async function pdfText(bytes: Uint8Array): Promise<string | null> {
  try {
    const { extractText, getDocumentProxy } = await import("unpdf");
    // PDF.js takes the buffer over (detaches it): it reads a copy.
    const document = await getDocumentProxy(new Uint8Array(bytes));
    try {
      const { text } = await extractText(document, { mergePages: true });
      const trimmed = text.replace(/\u0000/g, "").trim();
      return trimmed === "" ? null : trimmed.slice(0, MAX_PDF_TEXT_CHARS);
    } finally {
      await document.destroy();
    }
  } catch (error) {
    console.warn("[files] a PDF's text could not be read:", (error as Error).message);
    return null;
  }
}

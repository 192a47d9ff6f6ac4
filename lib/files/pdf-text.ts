import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";

/** What reading one PDF's text may take: past any of it, the text is not read. */
export interface PdfTextLimits {
  /** The most pages a PDF may have. */
  maxPages: number;
  /** The most its Flate streams (images aside) may inflate to, together. */
  maxInflatedBytes: number;
  /** The worker's JavaScript heap (its old generation), in MB; the worker is ended past it. */
  memoryMb: number;
  /** Past this the worker is terminated, whatever it is doing. */
  timeLimitMs: number;
  /** The most of its text that is kept: about a long book's worth. */
  maxChars: number;
}

/**
 * A long report reads well within these (a few seconds, tens of MB); a
 * 94 KB PDF whose content stream inflates to 64 MB, which held a server for
 * 9.7 s and 283 MB when it was read inside its upload, is refused by its
 * inflated size before PDF.js starts. A stream behind a filter other than
 * Flate first is not counted there: the heap and time limits bound it.
 */
export const PDF_TEXT_LIMITS: PdfTextLimits = {
  maxPages: 2_000,
  maxInflatedBytes: 48 * 1024 * 1024,
  memoryMb: 256,
  timeLimitMs: 20_000,
  maxChars: 1_000_000,
};

export type PdfTextResult = { text: string | null } | { refused: string };

/**
 * The worker's file, found from the working directory: the app's root in
 * development and tests, and the standalone folder in production (its
 * server.js changes to it), where scripts/standalone.mjs puts it beside the
 * unpdf it imports. A path, not an import: bundled, it would lose its own.
 */
const WORKER_FILE = path.join(process.cwd(), "lib", "files", "pdf-text-worker.mjs");

/**
 * A PDF's text, read in a worker thread of its own within `limits`; the
 * calling thread only waits. Null text: the PDF holds none (a scan) or
 * PDF.js could not open it. Refused: it passed a limit, said how.
 */
export function readPdfText(bytes: Uint8Array, limits: PdfTextLimits = PDF_TEXT_LIMITS): Promise<PdfTextResult> {
  // The worker takes the copy over (transferred), so the caller's bytes stay theirs.
  const copy = new Uint8Array(bytes).buffer;
  const worker = new Worker(WORKER_FILE, {
    workerData: { bytes: copy, maxPages: limits.maxPages, maxInflatedBytes: limits.maxInflatedBytes, maxChars: limits.maxChars },
    transferList: [copy],
    resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: Math.min(32, limits.memoryMb), stackSizeMb: 4 },
    // What PDF.js prints of a broken file is not the server's log: read and dropped.
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  return new Promise<PdfTextResult>((resolve) => {
    let settled = false;
    const settle = (result: PdfTextResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(() => settle({ refused: `reading it took longer than ${limits.timeLimitMs / 1000} s` }), limits.timeLimitMs);
    worker.on("message", (result: PdfTextResult & { unreadable?: string }) => {
      if (result.unreadable) console.warn("[files] a PDF could not be opened:", result.unreadable);
      settle("refused" in result ? { refused: result.refused } : { text: result.text });
    });
    worker.on("error", (error: Error & { code?: string }) => {
      const outOfMemory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
      if (!outOfMemory) console.warn("[files] reading a PDF's text failed:", error.message);
      settle({ refused: outOfMemory ? `reading it needed more than ${limits.memoryMb} MB` : "its reader failed" });
    });
    worker.on("exit", () => settle({ refused: "its reader stopped" }));
  });
}

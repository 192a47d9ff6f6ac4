import { describe, expect, it } from "vitest";
import { busyPage, flatePdf, pdfBomb, textPage } from "../support/files";
import { PDF_TEXT_LIMITS, readPdfText, type PdfTextLimits } from "@/lib/files/pdf-text";

// Each bound on reading a PDF's text, in the worker thread that reads it:
// past any of them the text is refused with the bound named, and the thread
// that asked goes on as before.

const limits = (change: Partial<PdfTextLimits>): PdfTextLimits => ({ ...PDF_TEXT_LIMITS, ...change });

describe("reading a PDF's text in a worker thread", () => {
  it("reads the text of every page of a PDF within the limits", async () => {
    const result = await readPdfText(flatePdf([textPage("First page"), textPage("Second page")]));
    expect(result).toEqual({ text: "First page\nSecond page" });
  });

  it("refuses a PDF bomb by what its streams inflate to, before PDF.js reads a word of it", async () => {
    const bomb = pdfBomb(64 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(await readPdfText(bomb)).toEqual({ refused: "its streams inflate to more than 48 MB" });
    // The same file under a limit above what it inflates to is read.
    expect(await readPdfText(bomb, limits({ maxInflatedBytes: 65 * 1024 * 1024 }))).toEqual({ text: "Boom" });
  });

  it("refuses a PDF with more pages than the limit", async () => {
    const three = flatePdf([textPage("one"), textPage("two"), textPage("three")]);
    expect(await readPdfText(three, limits({ maxPages: 2 }))).toEqual({ refused: "it has 3 pages, more than the 2 read here" });
  });

  it("ends a worker that passes its memory limit", async () => {
    const heavy = flatePdf([busyPage(8 * 1024 * 1024)]);
    expect(await readPdfText(heavy, limits({ memoryMb: 16 }))).toEqual({ refused: "reading it needed more than 16 MB" });
  });

  it("terminates a worker still reading at the time limit, while this thread goes on", async () => {
    const heavy = flatePdf([busyPage(8 * 1024 * 1024)]);
    const reading = readPdfText(heavy, limits({ timeLimitMs: 500 }));
    // This thread's timers keep firing while the worker reads.
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 20);
    const result = await reading;
    clearInterval(ticking);
    expect(result).toEqual({ refused: "reading it took longer than 0.5 s" });
    expect(ticks).toBeGreaterThan(5);
  });

  it("keeps at most maxChars of the text", async () => {
    expect(await readPdfText(flatePdf([textPage("A long line of words")]), limits({ maxChars: 6 }))).toEqual({ text: "A long" });
  });
});

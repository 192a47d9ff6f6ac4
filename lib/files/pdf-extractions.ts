import "server-only";
import { PDF_TEXT_LIMITS, readPdfText, type PdfTextLimits } from "./pdf-text";
import type { PdfTextStore, TakenPdf } from "./pdf-text-store";

/** PDFs one server reads at once: each is a worker thread of up to PdfTextLimits.memoryMb. */
export const PDF_READS_PER_SERVER = 2;

/**
 * Reads pending PDFs' text off the request path: any server takes them from
 * the database (PdfTextStore), a few at a time, each in a worker thread
 * within PdfTextLimits. Nothing polls: an upload kicks its own server, and a
 * turn that is about to send a pending PDF kicks the server it runs on, so a
 * PDF whose server died while reading it is taken again once its lease
 * passes, by the next turn that needs it.
 */
export class PdfExtractions {
  private reading = 0;
  private looking = false;
  private lookAgain = false;
  private readonly leaseSeconds: number;

  constructor(
    private readonly store: () => Pick<PdfTextStore, "take" | "finish">,
    private readonly options: { limits?: PdfTextLimits; concurrency?: number } = {},
  ) {
    // Long enough that a live server always answers within it: its read ends by the time limit.
    this.leaseSeconds = Math.ceil((2 * this.limits.timeLimitMs) / 1000) + 10;
  }

  private get limits(): PdfTextLimits {
    return this.options.limits ?? PDF_TEXT_LIMITS;
  }

  /** How long a turn waits for a pending PDF: a holder's lease to pass, then a read of its own. */
  get longestWaitMs(): number {
    return this.leaseSeconds * 1000 + this.limits.timeLimitMs;
  }

  /** Takes what pending PDFs this server has room for, and reads them; returns at once. */
  kick(): void {
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.looking = true;
    void this.fill()
      .catch((error) => console.error("[files] could not take pending PDFs:", (error as Error).message))
      .finally(() => {
        this.looking = false;
        if (this.lookAgain) this.kick();
      });
  }

  private async fill(): Promise<void> {
    const concurrency = this.options.concurrency ?? PDF_READS_PER_SERVER;
    do {
      this.lookAgain = false;
      while (this.reading < concurrency) {
        const taken = await this.store().take(concurrency - this.reading, this.leaseSeconds);
        if (taken.length === 0) break;
        for (const pdf of taken) {
          this.reading++;
          void this.read(pdf).finally(() => {
            this.reading--;
            this.kick();
          });
        }
      }
    } while (this.lookAgain);
  }

  private async read(pdf: TakenPdf): Promise<void> {
    const result = await readPdfText(pdf.content, this.limits);
    if ("refused" in result) console.warn(`[files] the text of PDF ${pdf.id} is not read: ${result.refused}`);
    try {
      await this.store().finish(pdf.id, "refused" in result ? { state: "failed" } : { state: "done", text: result.text });
    } catch (error) {
      // Left pending: taken again once its lease passes.
      console.error(`[files] the text of PDF ${pdf.id} could not be kept:`, (error as Error).message);
    }
  }
}

// Stop asks the server to end the generation and then lets the stream finish by
// itself, so the client ends up with exactly the text the server stored. Only if
// that does not happen in time (or the thread has no id yet) is the request
// aborted on the client.
import { stopThreadGeneration } from "@/lib/client/api";

// How long the server gets to end the stream itself before the client cuts it.
const SERVER_STOP_GRACE_MS = 3_000;

export class ReplyStop {
  private graceTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly tellServer: (threadId: string) => Promise<unknown> = stopThreadGeneration) {}

  /** Stops the reply of `threadId` (null: not named yet); `abort` cuts the stream on the client. */
  async stop(threadId: string | null, abort: () => Promise<void>): Promise<void> {
    if (!threadId) return abort();
    this.graceTimer = setTimeout(() => void abort(), SERVER_STOP_GRACE_MS);
    try {
      await this.tellServer(threadId);
    } catch {
      // The server could not be told; cutting the stream is all that is left.
      this.ended();
      await abort();
    }
  }

  /** Call when the turn has ended, however it ended (or the page is left). */
  ended(): void {
    clearTimeout(this.graceTimer);
  }
}

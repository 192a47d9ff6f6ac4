import type { UIMessageChunk } from "ai";

/**
 * An in-process channel from a running turn to one HTTP response. The turn
 * never waits for the reader: chunks queue until read, and once the reader is
 * gone (the tab closed) they are dropped while the turn runs on to the end.
 */
export class TurnChannel<T = UIMessageChunk> {
  private queue: T[] = [];
  private wake?: () => void;
  private closed = false;
  private detached = false;

  publish = (chunk: T): void => {
    if (this.closed || this.detached) return;
    this.queue.push(chunk);
    this.wake?.();
  };

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  readable(): ReadableStream<T> {
    return new ReadableStream<T>({
      pull: async (controller) => {
        while (this.queue.length === 0 && !this.closed) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
        }
        if (this.queue.length > 0) {
          for (const chunk of this.queue.splice(0)) controller.enqueue(chunk);
        } else {
          controller.close();
        }
      },
      cancel: () => {
        this.detached = true;
        this.queue = [];
      },
    });
  }
}

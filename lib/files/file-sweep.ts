import "server-only";
import type { FileStore } from "./file-store";

/** How often each server sweeps; an upload never sent goes within this long after its day is up. */
export const FILE_SWEEP_EVERY_MS = 10 * 60 * 1000;
const BATCH = 100;

/**
 * Removes uploads never sent once their day is up, looked for by every
 * server (on either runtime) every ten minutes; each file is taken by one
 * (threadline_sweep_files locks what it removes, SKIP LOCKED).
 */
export class FileSweep {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly files: () => Pick<FileStore, "sweep">) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), FILE_SWEEP_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Sweeps until a batch comes back short; how many were removed. */
  async sweep(): Promise<number> {
    let removed = 0;
    try {
      for (let last = BATCH; last === BATCH; removed += last) last = await this.files().sweep(BATCH);
    } catch (error) {
      // The database away for a moment: the next sweep tries again.
      console.error("[files] sweep failed:", (error as Error).message);
    }
    return removed;
  }
}

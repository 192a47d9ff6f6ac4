import "server-only";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";

/** How long a turn keeps trying to store what the user already saw while the database is away (a restart takes seconds). */
export const DEFAULT_SAVE_RETRY_MS = 30_000;

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 2_000;

/**
 * Runs `work`, and again after a growing pause while it fails because the
 * database cannot be reached, for at most `boundMs`. Any other failure, or
 * the bound, ends it with the last error.
 */
export async function whileDatabaseAway<T>(work: () => Promise<T>, boundMs: number): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + pause > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

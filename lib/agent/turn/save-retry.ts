import "server-only";
import { AppError } from "@threadline/history/errors";
import { databaseRefusal } from "@/lib/db/refusal";
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

/**
 * Stores a reply the user has already seen: while the database is away, it
 * keeps trying for a while (and then throws, so a durable runtime retries the
 * step). A write the database refuses for what it holds would be refused
 * again, so it is not an error to retry but an outcome: logged in full, and
 * returned as the reason in plain words.
 */
export async function saveReply(
  work: () => Promise<{ seq?: number; parentId?: string | null } | void>,
  options: { retryMs: number; turnId: string },
): Promise<{ seq?: number; parentId?: string | null } | { refused: string }> {
  try {
    const saved = await whileDatabaseAway(work, options.retryMs);
    return { seq: saved?.seq, parentId: saved?.parentId };
  } catch (error) {
    const refused = databaseRefusal(error);
    if (refused === undefined) throw error;
    console.error(`[turn ${options.turnId}] the database refused the reply:`, error);
    return { refused: `the database refused it: ${refused}` };
  }
}

/** Why a reply could not be saved, for the user, when saving it threw. */
export function saveFailure(error: unknown): string {
  if (isDatabaseUnavailable(error)) return "the database is unavailable";
  if (error instanceof AppError && error.code === "not_found:thread") return "its thread no longer exists";
  return "the server failed while storing it";
}

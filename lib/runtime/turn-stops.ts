import "server-only";
import { z } from "zod";
import type { TurnStore } from "@threadline/history/contract";
import type { ActiveTurns } from "./active-turns";

/** The Postgres channel a recorded Stop is announced on (threadline_request_stop). */
export const STOP_CHANNEL = "threadline_stop";

const stopNotice = z.object({ threadId: z.string(), turnId: z.string() });

/**
 * A Stop announced on STOP_CHANNEL, by whichever process recorded it: aborts
 * the turn it names if this process runs it. The database checked the owner.
 */
export function hearStop(active: ActiveTurns, payload: string): void {
  const notice = stopNotice.safeParse(JSON.parse(payload));
  if (notice.success) active.stopTurn(notice.data.threadId, notice.data.turnId);
}

/**
 * Stop, from any process: the thread's running turn is ended wherever it
 * runs. This process's own turn is aborted at once; the database records the
 * Stop and announces it to every process (lib/live/listener.ts listens),
 * and the running turn also finds it when it renews its lease.
 */
export class TurnStops {
  constructor(
    private readonly active: ActiveTurns,
    /** The adapter's turns; without them, only this process's turns can be stopped. */
    private readonly turns: () => TurnStore | undefined,
  ) {}

  /**
   * Whether a running turn of the thread was found (here or in the database)
   * and told to stop, or a reply waiting for the user's approval was ended
   * (`settled`: a durable run waiting for its decisions is woken to see it).
   */
  async stop(owner: string, threadId: string): Promise<{ stopped: boolean; settled: string[] }> {
    const here = this.active.stop(owner, threadId);
    const turns = this.turns();
    if (!turns) return { stopped: here, settled: [] };
    try {
      const { turns: told, settled } = await turns.requestStop({ owner, threadId });
      return { stopped: here || told.length > 0 || settled.length > 0, settled };
    } catch (error) {
      // The turn this process runs is stopped all the same.
      if (!here) throw error;
      console.error(`[thread ${threadId}] could not record the Stop:`, (error as Error).message);
      return { stopped: true, settled: [] };
    }
  }
}

import "server-only";
import type pg from "pg";
import type { TurnStore } from "@threadline/history/contract";
import { LiveStreamSlots } from "@/lib/db/live-streams";
import { RunnerLock } from "@/lib/db/runner-lock";
import type { CoreSettings } from "@/lib/env";
import { ASK_CHANNEL, LiveBus, PROGRESS_CHANNEL, THREADS_CHANNEL } from "@/lib/live/bus";
import { NotificationListener } from "@/lib/live/listener";
import { PostgresLiveStore } from "@/lib/live/postgres-progress";
import { TurnProgress } from "@/lib/live/progress-writer";
import type { LiveStore } from "@/lib/live/store";
import { TurnResume } from "@/lib/live/turn-resume";
import { once } from "@/lib/wing";
import { ActiveTurns } from "./active-turns";
import { hearStop, STOP_CHANNEL, TurnStops } from "./turn-stops";

// What one process hears from the others and tells them: a Stop for a turn it
// runs, a running turn's progress, an ask for that progress, an owner's
// changed threads. All of it travels on one connection of the process's own
// (NOTIFY), which also holds the lock that tells the others it is alive
// (lib/db/runner-lock.ts). Not on a database that serves one connection at a
// time (the embedded one, which one process holds by its data folder's lock):
// there every turn and every stream is this process's own, and a dead turn is
// told by its lease.

/** The parts that must be one per process, whichever of Next's bundles builds an app (lib/app.ts's ProcessState). */
export interface ProcessNewsState {
  activeTurns?: ActiveTurns;
  liveBus?: LiveBus;
  listener?: NotificationListener;
  runnerLock?: RunnerLock;
  liveStreams?: LiveStreamSlots;
}

type NewsSettings = Pick<CoreSettings, "DATABASE_URL" | "DATABASE_POOL_SIZE" | "STREAM_PROGRESS_MS" | "MAX_LIVE_STREAMS_PER_IDENTITY">;

/**
 * The process's news, over `shared` (kept by the process, or by a test's own
 * app): its running turns, the bus its streams wait on and the listener that
 * feeds it, opened on first use. `turns`: the history's turns, for a Stop of
 * a turn another process runs.
 */
export function processNews(shared: ProcessNewsState, config: NewsSettings, pool: () => pg.Pool, turns: () => TurnStore | undefined) {
  function opened(): { active: ActiveTurns; bus: LiveBus; runner?: RunnerLock } {
    if (!shared.activeTurns || !shared.liveBus) {
      const active = (shared.activeTurns ??= new ActiveTurns());
      const bus = (shared.liveBus ??= new LiveBus());
      const { DATABASE_URL, DATABASE_POOL_SIZE } = config;
      if (DATABASE_URL && DATABASE_POOL_SIZE > 1 && !shared.listener) {
        const session = (shared.runnerLock ??= new RunnerLock(pool));
        shared.listener = new NotificationListener(
          DATABASE_URL,
          {
            [STOP_CHANNEL]: (payload) => hearStop(active, payload),
            [PROGRESS_CHANNEL]: (payload) => bus.hearProgress(payload),
            [ASK_CHANNEL]: (payload) => bus.hearAsk(payload),
            [THREADS_CHANNEL]: (payload) => bus.hearThreads(payload),
          },
          { session },
        );
        bus.crossProcess = true;
      }
    }
    return { active: shared.activeTurns, bus: shared.liveBus, runner: shared.runnerLock };
  }

  const liveBus = (): LiveBus => opened().bus;
  const activeTurns = (): ActiveTurns => opened().active;
  const liveStore = once((): LiveStore => new PostgresLiveStore(pool()));

  /** Asks a turn's runner, in this process or any other, to write its progress for a while. */
  function askForProgress(turnId: string): void {
    const bus = liveBus();
    bus.emit("ask", turnId);
    if (!bus.crossProcess) return;
    // A lost ask is made good by the next (the reader asks again while it stays).
    liveStore()
      .announce({ channel: ASK_CHANNEL, payload: bus.turnNotice(turnId) })
      .catch((error) => console.error(`[turn ${turnId}] could not ask for its progress:`, (error as Error).message));
  }

  return {
    services: {
      activeTurns,
      /** What this process's open streams wait for: a turn's progress, an owner's threads (here and, through Postgres, elsewhere). */
      liveBus,
      /** Resolves once the process hears the database's news (at once where it has no listener: the embedded database). */
      listening: async (): Promise<void> => {
        opened();
        await shared.listener?.ready();
      },
      /** Live's store (a running reply's progress, which turn runs): the Postgres adapter's. */
      liveStore,
      /**
       * Keeps each running turn's stream and, while a reader here or elsewhere
       * asks for it, writes it to turn_progress, announced to every process
       * (NOTIFY) and to this one's streams; both runtimes use it.
       */
      turnProgress: once((): TurnProgress => {
        const bus = liveBus();
        return new TurnProgress({
          write: (row) => liveStore().writeProgress(row, { channel: PROGRESS_CHANNEL, payload: bus.turnNotice(row.turnId) }),
          emit: (turnId) => bus.emit("progress", turnId),
          onAsk: (turnId, ask) => bus.on("ask", turnId, ask),
          intervalMs: config.STREAM_PROGRESS_MS,
        });
      }),
      /** The cap on the live streams one identity holds open, on every server (MAX_LIVE_STREAMS_PER_IDENTITY). */
      liveStreams: (): LiveStreamSlots => (shared.liveStreams ??= new LiveStreamSlots(pool, () => config.MAX_LIVE_STREAMS_PER_IDENTITY)),
      /** A thread's running reply, for a client that joins late (GET /api/threads/:id/stream). */
      turnResume: once((): TurnResume => new TurnResume(liveStore, liveBus, askForProgress)),
      askForProgress,
      /** Stop from any process: this one's turn at once, any other's through the database. */
      turnStops: once((): TurnStops => new TurnStops(activeTurns(), turns)),
    },
    /** This process's runner key, recorded with each turn it runs under a lease; null where there is none (the embedded database). */
    runnerKey: (): Promise<string | null> => opened().runner?.current() ?? Promise.resolve(null),
    /**
     * This process's own change to an owner's threads, told to its own streams
     * where no listener brings the database's announcements (the embedded
     * database). With a listener the database tells every process, this one
     * too: telling it here as well would be news twice.
     */
    threadsChanged(owner: string, threadId: string): void {
      const bus = liveBus();
      if (!bus.crossProcess) bus.emit("threads", owner, threadId);
    },
    /** Closes the listener (the process's state keeps the rest for the next app). */
    async close(): Promise<void> {
      await shared.listener?.close();
      shared.listener = undefined;
    },
  };
}

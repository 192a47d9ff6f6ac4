import "server-only";
import type pg from "pg";
import { defaultNetwork } from "@/lib/agent/network/default-network";
import type { Network } from "@/lib/agent/network/network";
import { DeviceLinks } from "@/lib/auth/device-links";
import { sessionSecret } from "@/lib/auth/secret";
import { getOwnerFromCookies, requireOwner } from "@/lib/auth/session";
import { LiveStreamSlots } from "@/lib/db/live-streams";
import { NotificationListener } from "@/lib/live/listener";
import { RunnerLock } from "@/lib/db/runner-lock";
import { createPool } from "@/lib/db/pool";
import { env, type Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { PostgresHistoryAdapter } from "@/lib/history/postgres";
import { inngest } from "@/lib/inngest/client";
import { createChatTurnFunction } from "@/lib/inngest/functions/chat-turn";
import { createCompactThreadFunction } from "@/lib/inngest/functions/compact-thread";
import { realtimePublisher } from "@/lib/inngest/publisher";
import { InngestRuntime } from "@/lib/inngest/runtime";
import { inngestConfigured, inngestRefusal } from "@/lib/inngest/settings";
import { RateLimits, type Limiters } from "@/lib/rate-limit";
import { ActiveTurns } from "@/lib/runtime/active-turns";
import { InlineRuntime } from "@/lib/runtime/inline";
import { PostgresLiveStore } from "@/lib/history/postgres-progress";
import { LiveBus, PROGRESS_CHANNEL, THREADS_CHANNEL } from "@/lib/live/bus";
import type { LiveStore } from "@/lib/live/store";
import { TurnProgress } from "@/lib/live/progress-writer";
import { TurnResume } from "@/lib/live/turn-resume";
import { hearStop, STOP_CHANNEL, TurnStops } from "@/lib/runtime/turn-stops";
import type { TurnRuntime } from "@/lib/runtime/types";
import { ThreadRepository } from "@/lib/threads/repository";

// The composition root: what the app is built from, and the one place that
// builds it. The pool (lib/db/pool.ts) → the session secret, the rate limits,
// the history adapter and the repositories over it → the agents' network →
// the runtime that runs turns with them. Each part is built on first use,
// once. Routes, pages, proxy.ts and the Inngest functions take what they need
// from here; nothing below lib/app.ts locates the pool, the secret, a limit,
// a repository, the network or the runtime for itself, so a test hands any of
// them a fake instead.

/**
 * What must be one per process lives on globalThis: the pool (a dev reload
 * must not leak a new one per edit), the rate limits (their limiters clear
 * expired counts on a timer), running turns (Stop must find them whichever
 * route handles it) and the runtime holding them, and the live streams'
 * places (renewed on a timer) survive Next's dev reloads and its separate
 * bundles. The stateless parts are rebuilt with the module,
 * so an edit to them takes effect.
 */
const processWide = globalThis as unknown as {
  threadlinePool?: pg.Pool;
  threadlineLimiters?: Limiters;
  threadlineActiveTurns?: ActiveTurns;
  threadlineLiveBus?: LiveBus;
  threadlineListener?: NotificationListener;
  threadlineRunnerLock?: RunnerLock;
  threadlineRuntime?: TurnRuntime;
  threadlineLiveStreams?: LiveStreamSlots;
};

const once = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
};

/** The network for the configuration in force: built once, again only when the variables change (tests change them). */
let latestNetwork: { settings: Env; network: Network } | undefined;

/** The process's one pool; refuses (an AppError) when DATABASE_URL is unset. */
const pool = (): pg.Pool => (processWide.threadlinePool ??= createPool());

/**
 * What other processes tell this one, on one connection of its own (NOTIFY):
 * a Stop recorded for a turn (STOP_CHANNEL), a turn's new progress and an
 * owner's changed threads (lib/live/bus.ts); on the same connection,
 * the lock that tells them this process is alive (lib/db/runner-lock.ts).
 * Opened with the process's running turns. Not on a database that serves one
 * connection at a time (the embedded one, which one process holds by its data
 * folder's lock): there, every turn and every stream is this process's own,
 * and a dead turn is told by its lease.
 */
function processNews(): { active: ActiveTurns; bus: LiveBus; runner?: RunnerLock } {
  if (!processWide.threadlineActiveTurns || !processWide.threadlineLiveBus) {
    const active = (processWide.threadlineActiveTurns ??= new ActiveTurns());
    const bus = (processWide.threadlineLiveBus ??= new LiveBus());
    const { DATABASE_URL, DATABASE_POOL_SIZE } = env();
    if (DATABASE_URL && DATABASE_POOL_SIZE > 1 && !processWide.threadlineListener) {
      const session = (processWide.threadlineRunnerLock ??= new RunnerLock(pool));
      processWide.threadlineListener = new NotificationListener(
        DATABASE_URL,
        {
          [STOP_CHANNEL]: (payload) => hearStop(active, payload),
          [PROGRESS_CHANNEL]: (payload) => bus.hearProgress(payload),
          [THREADS_CHANNEL]: (payload) => bus.hearThreads(payload),
        },
        { session },
      );
      bus.crossProcess = true;
    }
  }
  return { active: processWide.threadlineActiveTurns, bus: processWide.threadlineLiveBus, runner: processWide.threadlineRunnerLock };
}

/** This process's runner key, recorded with each turn it runs under a lease; null where there is none (the embedded database). */
const runnerKey = (): Promise<string | null> => processNews().runner?.current() ?? Promise.resolve(null);

/**
 * This process's own change to an owner's threads, told to its own streams
 * where no listener brings the database's announcements (the embedded
 * database). With a listener the database tells every process, this one too:
 * telling it here as well would be news twice.
 */
function threadsChangedHere(owner: string, threadId: string): void {
  const bus = app.liveBus();
  if (!bus.crossProcess) bus.emit("threads", owner, threadId);
}

export const app = {
  pool,
  /** Loaded on the first read; a configured SESSION_SECRET never asks for the pool. */
  sessionSecret: sessionSecret(pool),
  rateLimits: (): RateLimits => new RateLimits(pool, (processWide.threadlineLimiters ??= new Map())),
  threads: once((): ThreadRepository => new ThreadRepository(pool(), threadsChangedHere, app.history())),
  history: once(() => new PostgresHistoryAdapter(pool(), threadsChangedHere, runnerKey)),
  deviceLinks: once(() => new DeviceLinks(pool())),

  /** The identity of a route handler's request; a 401 AppError without a valid cookie. */
  requireOwner: (request: Request): Promise<string> => requireOwner(request, app.sessionSecret),
  /** The identity of the visitor a server component renders for, or null. */
  ownerFromCookies: (): Promise<string | null> => getOwnerFromCookies(app.sessionSecret),

  network(): Network {
    const settings = env();
    if (latestNetwork?.settings !== settings) {
      const threads = app.threads();
      latestNetwork = { settings, network: defaultNetwork(async (owner, query, options) => (await threads.search(owner, query, options)).results) };
    }
    return latestNetwork.network;
  },

  activeTurns: (): ActiveTurns => processNews().active,
  /** What this process's open streams wait for: a turn's progress, an owner's threads (here and, through Postgres, elsewhere). */
  liveBus: (): LiveBus => processNews().bus,
  /** Live's store (a running reply's progress, which turn runs): the Postgres adapter's. */
  liveStore: once((): LiveStore => new PostgresLiveStore(pool())),
  /**
   * Writes each running turn's stream to turn_progress, announced to every
   * process (NOTIFY) and to this one's streams; both runtimes use it.
   */
  turnProgress: once((): TurnProgress => {
    const bus = app.liveBus();
    const notice = (turnId: string) => ({ channel: PROGRESS_CHANNEL, payload: JSON.stringify({ origin: bus.origin, turnId }) });
    return new TurnProgress({
      write: (row) => app.liveStore().writeProgress(row, notice(row.turnId)),
      emit: (turnId) => bus.emit("progress", turnId),
      intervalMs: env().STREAM_PROGRESS_MS,
    });
  }),
  /** The cap on the live streams one identity holds open, on every server (MAX_LIVE_STREAMS_PER_IDENTITY). */
  liveStreams: (): LiveStreamSlots =>
    (processWide.threadlineLiveStreams ??= new LiveStreamSlots(pool, () => env().MAX_LIVE_STREAMS_PER_IDENTITY)),
  /** A thread's running reply, for a client that joins late (GET /api/threads/:id/stream). */
  turnResume: once((): TurnResume => new TurnResume(app.liveStore, app.liveBus)),
  /** Stop from any process: this one's turn at once, any other's through the database. */
  turnStops: once((): TurnStops => new TurnStops(app.activeTurns(), () => app.history().turns)),

  /** The Inngest functions, over this app's parts (served at /api/inngest). */
  inngestFunctions: once((): InngestFunctions => [createChatTurnFunction({ ...app, publisher: realtimePublisher }), createCompactThreadFunction(app)]),

  /** Inline, or Inngest when it is configured (lib/inngest/settings.ts). */
  runtime(): TurnRuntime {
    // The start script refuses this already; a server started another way must refuse too.
    const refusal = inngestRefusal();
    if (refusal) {
      console.error(`[runtime] ${refusal}`);
      throw new AppError("unavailable:inngest_config", "The server is misconfigured; its log says how to fix it.");
    }
    return (processWide.threadlineRuntime ??= inngestConfigured()
      ? new InngestRuntime(inngest, app.turnStops(), app.sessionSecret, undefined, (owner, threadId) => app.liveStore().runningTurnOf(owner, threadId))
      : new InlineRuntime(
          {
            history: app.history,
            network: app.network,
            sessionSecret: app.sessionSecret,
            leaseMs: env().TURN_LEASE_SECONDS * 1000,
            saveRetryMs: env().SAVE_RETRY_SECONDS * 1000,
            turnProgress: app.turnProgress,
          },
          app.activeTurns(),
          app.turnStops(),
        ));
  },
};

export type App = typeof app;

type InngestFunctions = [ReturnType<typeof createChatTurnFunction>, ReturnType<typeof createCompactThreadFunction>];

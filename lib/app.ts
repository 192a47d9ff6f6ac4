import "server-only";
import type pg from "pg";
import type { LanguageModel } from "ai";
import { defaultNetwork } from "@/lib/agent/network/default-network";
import type { Network } from "@/lib/agent/network/network";
import { DeviceLinks } from "@/lib/auth/device-links";
import { sessionSecret } from "@/lib/auth/secret";
import { getOwnerFromCookies, requireOwner } from "@/lib/auth/session";
import { LiveStreamSlots } from "@/lib/db/live-streams";
import { NotificationListener } from "@/lib/live/listener";
import { RunnerLock } from "@/lib/db/runner-lock";
import { createPool } from "@/lib/db/pool";
import { env, type Env } from "@/lib/settings";
import { AppError } from "@threadline/history/errors";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { createInngestClient, type InngestClient } from "@/lib/inngest/client";
import { InngestRuntime } from "@/lib/inngest/runtime";
import { inngestConfigured, inngestRefusal } from "@/lib/inngest/settings";
import { answeringModels } from "@/lib/model/provider";
import { RateLimits, type Limiters } from "@/lib/rate-limit";
import { ActiveTurns } from "@/lib/runtime/active-turns";
import { InlineRuntime } from "@/lib/runtime/inline";
import { PostgresLiveStore } from "@/lib/live/postgres-progress";
import { ASK_CHANNEL, LiveBus, PROGRESS_CHANNEL, THREADS_CHANNEL } from "@/lib/live/bus";
import type { LiveStore } from "@/lib/live/store";
import { TurnProgress } from "@/lib/live/progress-writer";
import { TurnResume } from "@/lib/live/turn-resume";
import { hearStop, STOP_CHANNEL, TurnStops } from "@/lib/runtime/turn-stops";
import type { TurnRuntime } from "@/lib/runtime/types";
import { ThreadRepository } from "@/lib/threads/repository";
import type { Reminder } from "@/lib/reminders/reminder-store";
import { wingServices, wingTools, type WingServices } from "@/lib/wings";
import { once, type WingParts } from "@/lib/wing";
import type { SearchThreads } from "@/lib/agent/network/tools/search-threads";
import { scheduleOnInngest } from "@/lib/inngest/reminder-events";
import { DueWork } from "@/lib/runtime/due-work";

// The composition root: createApp builds the app from a parsed configuration
// and, optionally, parts (a pool, a model, an Inngest client): the pool → the
// session secret, the rate limits, the history adapter and the repositories
// over it → the wings' services (lib/wings.ts: files, documents, reminders,
// models, MCP …, each a member of the app) → the agents' network, its tools
// the wings' → the runtime that runs turns with them. Each
// part is built on first use, once. Nothing below it reads the configuration
// or locates a part for itself: everything is handed in, so a test builds an
// app of its own from an object (tests/support/test-app.ts). The process's
// app is built from env() by app(), the one accessor routes, pages, proxy.ts
// and the Inngest functions (inngest/) take it from.

/**
 * What must be one per process, whichever of Next's bundles (each route is
 * one) builds an app, and across dev reloads: the pool, the rate limits'
 * limiters (they clear expired counts on a timer), running turns (Stop must
 * find them whichever route handles it) and the runtime holding them, the
 * bus and the listener that feeds it, the runner lock, and the live streams'
 * places (renewed on a timer). The limiters and the runtime are kept with the
 * configuration they were built for: a dev reload after an edit of .env
 * builds them again. The process's app keeps this on globalThis; an app built
 * by a test has one of its own.
 */
export interface ProcessState {
  pool?: pg.Pool;
  limiters?: { settings: string; limiters: Limiters };
  activeTurns?: ActiveTurns;
  liveBus?: LiveBus;
  listener?: NotificationListener;
  runnerLock?: RunnerLock;
  runtime?: { settings: string; runtime: TurnRuntime };
  liveStreams?: LiveStreamSlots;
  dueWork?: DueWork;
  /** The wings' one-per-process parts (a file sweep, the PDF readers), by key. */
  wings?: Map<string, unknown>;
}

/** What an app may be given instead of building it from its configuration. */
export interface AppParts {
  /** The database pool; unset: one for DATABASE_URL. */
  pool?: pg.Pool;
  /** The model every agent calls; unset: the configured provider's. */
  model?: LanguageModel;
  /** The Inngest client; unset: one built from the configuration. */
  inngest?: InngestClient;
  /** Unset: a state of the app's own. */
  process?: ProcessState;
}

export function createApp(config: Env, parts: AppParts = {}) {
  const shared = parts.process ?? {};
  // The configuration as one value: each of Next's bundles builds its own app from its own reading of it.
  const settings = JSON.stringify(config);

  /** The app's one pool; refuses (an AppError) when DATABASE_URL is unset. */
  const pool = (): pg.Pool => (shared.pool ??= parts.pool ?? createPool(config));

  /**
   * What other processes tell this one, on one connection of its own (NOTIFY):
   * a Stop recorded for a turn (STOP_CHANNEL), a turn's new progress and an
   * owner's changed threads (lib/live/bus.ts); on the same connection, the
   * lock that tells them this process is alive (lib/db/runner-lock.ts).
   * Opened with the process's running turns. Not on a database that serves one
   * connection at a time (the embedded one, which one process holds by its data
   * folder's lock): there, every turn and every stream is this process's own,
   * and a dead turn is told by its lease.
   */
  function processNews(): { active: ActiveTurns; bus: LiveBus; runner?: RunnerLock } {
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

  /** The limiters for this configuration: a process keeps one set while its configuration stays as it is. */
  function limiters(): Limiters {
    if (shared.limiters?.settings !== settings) shared.limiters = { settings, limiters: new Map() };
    return shared.limiters.limiters;
  }

  // What the app's wings were handed to close with it, and their one-per-process parts (ProcessState's `wings`).
  const closing: (() => void | Promise<void>)[] = [];
  const wingsShared = (shared.wings ??= new Map());
  const wingParts: WingParts<Env> = {
    config,
    pool,
    threadsChanged: threadsChangedHere,
    perProcess<T>(key: string, build: () => T, close?: (value: T) => void | Promise<void>): T {
      if (!wingsShared.has(key)) {
        const value = build();
        wingsShared.set(key, value);
        if (close) {
          closing.push(async () => {
            wingsShared.delete(key);
            await close(value);
          });
        }
      }
      return wingsShared.get(key) as T;
    },
    onClose: (close) => void closing.push(close),
  };

  const core = {
    /** The configuration the app was built from. */
    config,
    pool,
    /** Loaded on the first read; a configured SESSION_SECRET never asks for the pool. */
    sessionSecret: sessionSecret(pool, config.SESSION_SECRET),
    rateLimits: (): RateLimits => new RateLimits(pool, config, limiters()),
    threads: once((): ThreadRepository => new ThreadRepository(pool(), threadsChangedHere, app.history())),
    history: once(() => new PostgresHistoryAdapter(pool(), threadsChangedHere, runnerKey)),
    deviceLinks: once(() => new DeviceLinks(pool())),
    /** Where tool calls wait for the user's approval. */
    approvals: () => app.history().approvals,
    /** How long a tool call waits for the user's decision before it is denied as expired. */
    approvalTimeoutMs: config.TOOL_APPROVAL_TIMEOUT_HOURS * 3_600_000,

    /** The identity of a route handler's request; a 401 AppError without a valid cookie. */
    requireOwner: (request: Request): Promise<string> => requireOwner(request, app.sessionSecret),
    /** The identity of the visitor a server component renders for, or null. */
    ownerFromCookies: (): Promise<string | null> => getOwnerFromCookies(app.sessionSecret),

    network: once((): Network => {
      const threads = app.threads();
      // A test's own model answers every turn, whatever it picks; else the configured ones.
      const models = parts.model ? { model: parts.model } : answeringModels(config);
      const { toolsets, listed } = wingTools(app);
      const search: SearchThreads = async (owner, query, options) => (await threads.search(owner, query, options)).results;
      return { ...defaultNetwork(config, models, search, toolsets, listed), fileInput: app.fileInput };
    }),
    /** On Inngest a run sleeps until a reminder is due; inline, every server's DueWork looks for it. */
    reminderScheduled: () => (app.inngestConfigured() ? (reminder: Reminder) => scheduleOnInngest(app.inngest(), reminder) : undefined),
    /**
     * The inline runtime's due work (reminders, replies left to go on),
     * looked for once a second by every server; started as the server starts
     * (instrumentation.ts). None on Inngest, whose runs wait themselves.
     */
    dueWork: (): DueWork | undefined => {
      if (app.inngestConfigured()) return undefined;
      return (shared.dueWork ??= new DueWork({
        reminders: app.reminders,
        approvals: app.approvals,
        runtime: () => app.runtime(),
        approvalTimeoutMs: app.approvalTimeoutMs,
      }));
    },

    activeTurns: (): ActiveTurns => processNews().active,
    /** Resolves once the process hears the database's news (at once where it has no listener: the embedded database). */
    listening: async (): Promise<void> => {
      processNews();
      await shared.listener?.ready();
    },
    /** What this process's open streams wait for: a turn's progress, an owner's threads (here and, through Postgres, elsewhere). */
    liveBus: (): LiveBus => processNews().bus,
    /** Live's store (a running reply's progress, which turn runs): the Postgres adapter's. */
    liveStore: once((): LiveStore => new PostgresLiveStore(pool())),
    /**
     * Keeps each running turn's stream and, while a reader here or elsewhere
     * asks for it, writes it to turn_progress, announced to every process
     * (NOTIFY) and to this one's streams; both runtimes use it.
     */
    turnProgress: once((): TurnProgress => {
      const bus = app.liveBus();
      return new TurnProgress({
        write: (row) => app.liveStore().writeProgress(row, { channel: PROGRESS_CHANNEL, payload: bus.turnNotice(row.turnId) }),
        emit: (turnId) => bus.emit("progress", turnId),
        onAsk: (turnId, ask) => bus.on("ask", turnId, ask),
        intervalMs: config.STREAM_PROGRESS_MS,
      });
    }),
    /** The cap on the live streams one identity holds open, on every server (MAX_LIVE_STREAMS_PER_IDENTITY). */
    liveStreams: (): LiveStreamSlots => (shared.liveStreams ??= new LiveStreamSlots(pool, () => config.MAX_LIVE_STREAMS_PER_IDENTITY)),
    /** A thread's running reply, for a client that joins late (GET /api/threads/:id/stream). */
    turnResume: once((): TurnResume => new TurnResume(app.liveStore, app.liveBus, app.askForProgress)),
    /** Asks a turn's runner, in this process or any other, to write its progress for a while. */
    askForProgress: (turnId: string): void => {
      const bus = app.liveBus();
      bus.emit("ask", turnId);
      if (!bus.crossProcess) return;
      // A lost ask is made good by the next (the reader asks again while it stays).
      app
        .liveStore()
        .announce({ channel: ASK_CHANNEL, payload: bus.turnNotice(turnId) })
        .catch((error) => console.error(`[turn ${turnId}] could not ask for its progress:`, (error as Error).message));
    },
    /** Stop from any process: this one's turn at once, any other's through the database. */
    turnStops: once((): TurnStops => new TurnStops(app.activeTurns(), () => app.history().turns)),

    /** Whether Inngest runs this app's turns (lib/inngest/settings.ts). */
    inngestConfigured: (): boolean => inngestConfigured(config),
    /** The Inngest client: sends the turns' events, publishes their chunks, serves the functions. */
    inngest: once((): InngestClient => parts.inngest ?? createInngestClient(config)),
    /** Inline, or Inngest when it is configured (lib/inngest/settings.ts). */
    runtime(): TurnRuntime {
      // The start script refuses this already; a server started another way must refuse too.
      const refusal = inngestRefusal(config);
      if (refusal) {
        console.error(`[runtime] ${refusal}`);
        throw new AppError("unavailable:inngest_config", "The server is misconfigured; its log says how to fix it.");
      }
      if (shared.runtime?.settings === settings) return shared.runtime.runtime;
      const runtime = inngestConfigured(config)
        ? new InngestRuntime(app.inngest(), app.turnStops(), app.sessionSecret, undefined, (owner, threadId) => app.liveStore().runningTurnOf(owner, threadId))
        : new InlineRuntime(
            {
              history: app.history,
              approvals: app.approvals,
              network: app.network,
              sessionSecret: app.sessionSecret,
              leaseMs: config.TURN_LEASE_SECONDS * 1000,
              approvalTimeoutMs: app.approvalTimeoutMs,
              saveRetryMs: config.SAVE_RETRY_SECONDS * 1000,
              turnProgress: app.turnProgress,
            },
            app.activeTurns(),
            app.turnStops(),
          );
      shared.runtime = { settings, runtime };
      return runtime;
    },

    /** Ends what the app opened: its listener and, unless it was handed one, its pool. The process's app is never closed. */
    async close(): Promise<void> {
      for (const close of closing.splice(0)) await close();
      await shared.dueWork?.stop();
      shared.dueWork = undefined;
      await shared.listener?.close();
      shared.listener = undefined;
      if (!parts.pool && shared.pool) await shared.pool.end();
      shared.pool = undefined;
    },
  };
  // The wings' services are members of the app (lib/wings.ts): built over its parts, reading the app only when called.
  const app: typeof core & WingServices = Object.assign(core, wingServices(wingParts, () => app));
  return app;
}

export type App = ReturnType<typeof createApp>;

/** The process's state, on globalThis: Next's bundles and its dev reloads share it (see ProcessState). */
const processWide = globalThis as unknown as { threadlineProcess?: ProcessState };

let current: App | undefined;
let replaced = false;

/** The app: the process's, built from env() on first use, or the one a test put in its place (useApp). */
export function app(): App {
  if (!current) current = createApp(env(), { process: (processWide.threadlineProcess ??= {}) });
  return current;
}

/** Puts a test's app in place of the one in use (undefined: back to the process's); returns the test's app it replaced, if any. */
export function useApp(testApp: App | undefined): App | undefined {
  const before = replaced ? current : undefined;
  current = testApp;
  replaced = testApp !== undefined;
  return before;
}

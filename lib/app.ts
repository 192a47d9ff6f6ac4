import "server-only";
import type pg from "pg";
import type { LanguageModel } from "ai";
import { defaultNetwork } from "@/lib/agent/network/default-network";
import type { Network } from "@/lib/agent/network/network";
import { DeviceLinks } from "@/lib/auth/device-links";
import { sessionSecret } from "@/lib/auth/secret";
import { pageIdentity } from "@/lib/accounts/page-request";
import { createPool } from "@/lib/db/pool";
import { env, type Env } from "@/lib/settings";
import { AppError } from "@threadline/history/errors";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { createInngestClient, type InngestClient } from "@/lib/inngest/client";
import { InngestRuntime } from "@/lib/inngest/runtime";
import { inngestConfigured, inngestRefusal } from "@/lib/inngest/settings";
import { answeringModels } from "@/lib/model/provider";
import { RateLimits, type Limiters } from "@/lib/rate-limit";
import { InlineRuntime } from "@/lib/runtime/inline";
import { processNews, type ProcessNewsState } from "@/lib/runtime/process-news";
import type { TurnRuntime } from "@/lib/runtime/types";
import { ThreadRepository } from "@/lib/threads/repository";
import type { Reminder } from "@/lib/reminders/reminder-store";
import { WINGS, wingServices, wingTools, type WingServices } from "@/lib/wings";
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
export interface ProcessState extends ProcessNewsState {
  pool?: pg.Pool;
  limiters?: { settings: string; limiters: Limiters };
  runtime?: { settings: string; runtime: TurnRuntime };
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

  // What this process hears from the others and tells them (lib/runtime/process-news.ts).
  const news = processNews(shared, config, pool, () => app.history().turns);

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
    threadsChanged: news.threadsChanged,
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
    threads: once((): ThreadRepository => new ThreadRepository(pool(), WINGS, news.threadsChanged, app.history())),
    history: once(() => new PostgresHistoryAdapter(pool(), news.threadsChanged, news.runnerKey)),
    deviceLinks: once(() => new DeviceLinks(pool())),
    /** Where tool calls wait for the user's approval. */
    approvals: () => app.history().approvals,
    /** How long a tool call waits for the user's decision before it is denied as expired. */
    approvalTimeoutMs: config.TOOL_APPROVAL_TIMEOUT_HOURS * 3_600_000,

    /** The owner id of a route handler's request (lib/accounts/: its session, its proxy's header or its browser); a 401 AppError without one. */
    requireOwner: (request: Request): Promise<string> => app.accounts().requireOwner(request),
    /** The owner id of the visitor a server component renders for, or null. */
    ownerFromCookies: async (): Promise<string | null> => (await pageIdentity(app.accounts()))?.owner ?? null,

    network: once((): Network => {
      const threads = app.threads();
      // A test's own model answers every turn, whatever it picks; else the configured ones.
      const models = parts.model ? { model: parts.model } : answeringModels(config);
      const { toolsets, listed } = wingTools(app);
      const search: SearchThreads = async (owner, query, options) => (await threads.search(owner, query, options)).results;
      // Every model call is reserved on its owner's bill first (lib/budgets/); the person's memories are given first (lib/memory/).
      return { ...defaultNetwork(config, models, search, toolsets, listed), fileInput: app.fileInput, spend: app.spendGate(), memory: app.turnMemory() };
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
        lessons: app.lessonRunner,
      }));
    },

    ...news.services,
    /** This process's runner lock key (lib/db/runner-lock.ts), while it holds one. */
    runnerKey: news.runnerKey,

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
              learn: (lesson) => app.lessonRunner()?.learnLater(lesson),
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
      await news.close();
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

import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type pg from "pg";
import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import type { App, AppParts } from "@/lib/app";
import type { RawEnv } from "@/lib/env";
import { visitor } from "./api";
import { testPool } from "./db";
import { startInProcessInngest, type InProcessInngest } from "./in-process-inngest";
import type { InngestStandin } from "./inngest-standin/index.mjs";
import { testApp } from "./test-app";

type InngestOptions = Omit<NonNullable<Parameters<typeof startInProcessInngest>[0]>, "titles" | "settings">;

export interface IntegrationOptions {
  /** "offline": the built-in offline model and no mock model server; by default the mock model server answers. */
  model?: "mock" | "offline";
  /** A model server of the test's choosing (one that never answers, say) in place of the mock. */
  modelUrl?: string;
  /** Let the model title threads (see testApp). */
  titles?: boolean;
  /** More of the app's settings, as the variables they are read from; a function is asked once the hooks before this one have run (servers a test started, say). */
  settings?: RawEnv | (() => RawEnv);
  /** Parts the app takes instead of building its own (a pool that counts, a clock…); inline only. */
  parts?: AppParts;
  /** "inngest": turns run on the Inngest stand-in in this process (in-process-inngest.ts); by default inline. */
  runtime?: "inline" | "inngest";
  /** The stand-in's own options, on the Inngest runtime. */
  inngest?: InngestOptions;
  /** Start the look for due work as a server does when it starts (instrumentation.ts); inline only. */
  dueWork?: boolean;
}

export interface Integration {
  /** The mock model server (scripts/mock-model-server.mjs): its requests and usages are emptied before each test. */
  readonly mock: MockModelServer;
  /** The app in use: its route handlers, imported by the test, serve with it. */
  readonly app: App;
  /** A pool on the test database of the test's own. */
  readonly pool: pg.Pool;
  /** A new anonymous visitor for each test. */
  readonly me: { id: string; cookie: string };
  /** The Inngest path in this process, on the Inngest runtime. */
  readonly inngest: InProcessInngest;
  /** Its stand-in: the runs it drove, and `idle()` to wait for them. */
  readonly standin: InngestStandin;
  /** An app with these settings over the file's, in use for the rest of the test (the next test starts from the file's app). */
  configure(settings: RawEnv, parts?: AppParts): Promise<App>;
}

/**
 * What an integration file (or describe block) needs, set up by its own
 * hooks: the mock model server, a test app (test-app.ts) pointed at it and at
 * the test database, a pool, and a fresh visitor before each test. One mock
 * server and one app serve the whole file (or block): a test that needs other
 * settings asks `configure` for an app of its own.
 */
export function integrationApp(options: IntegrationOptions = {}): Integration {
  const { modelUrl, model = modelUrl ? "offline" : "mock", titles, parts, runtime = "inline", inngest: inngestOptions, dueWork } = options;
  let settings: RawEnv = {};
  const pool = testPool();
  let mock: MockModelServer | undefined;
  let base: App | undefined;
  let app: App | undefined;
  let inngest: InProcessInngest | undefined;
  let me: { id: string; cookie: string } | undefined;

  beforeAll(async () => {
    settings = typeof options.settings === "function" ? options.settings() : (options.settings ?? {});
    if (runtime === "inngest") {
      inngest = await startInProcessInngest({ ...inngestOptions, titles, settings: settings as Record<string, string> });
      ({ mock, app } = inngest);
    } else {
      if (model === "mock") mock = await startMockModelServer();
      app = testApp({ modelUrl: mock?.url ?? modelUrl, titles, settings }, parts);
      if (dueWork) app.dueWork()!.start();
    }
    base = app;
  });
  afterEach(async () => {
    if (app !== base) await app?.close();
    app = base;
  });
  afterAll(async () => {
    if (inngest) await inngest.close();
    else {
      await base?.close();
      await mock?.close();
    }
    await pool.end();
  });
  beforeEach(async () => {
    me = await visitor();
    if (mock) {
      // In place, as DELETE /__requests does: in-process callers hold these arrays.
      mock.requests.length = 0;
      mock.usages.length = 0;
    }
  });

  const defined = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`integrationApp: no ${what} (outside a test, or not asked for)`);
    return value;
  };
  return {
    get mock() {
      return defined(mock, "mock model server");
    },
    get app() {
      return defined(app, "app");
    },
    pool,
    get me() {
      return defined(me, "visitor");
    },
    get inngest() {
      return defined(inngest, "Inngest stand-in");
    },
    get standin() {
      return defined(inngest, "Inngest stand-in").standin;
    },
    async configure(more, moreParts) {
      if (app !== base) await app?.close();
      app = inngest ? inngest.appWith(more as Record<string, string>) : testApp({ modelUrl: mock?.url ?? modelUrl, titles, settings: { ...settings, ...more } }, moreParts ?? parts);
      return app;
    },
  };
}

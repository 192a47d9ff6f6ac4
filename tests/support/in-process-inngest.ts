import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import type { App } from "@/lib/app";
import { testApp } from "./test-app";
import { startInngestStandin, type InngestStandin, type StandinMode } from "./inngest-standin/index.mjs";

/** What the stand-in calls to run a step: the app's serve route, or a serve handler a test built itself (typed for Next's request, given a plain one). */
export type ServeHandlers = Record<"GET" | "POST" | "PUT", (request: never, context: never) => Promise<Response>>;

export interface InProcessInngest {
  mock: MockModelServer;
  standin: InngestStandin;
  /** The test's app, its turns on the stand-in. */
  app: App;
  /** Another app on the same stand-in with more settings, in use until it is closed. */
  appWith(settings: Record<string, string>): App;
  /** Waits for the runs still going, then stops the stand-in, the mock model and the app. */
  close(): Promise<void>;
}

type StandinOptions = NonNullable<Parameters<typeof startInngestStandin>[0]>;

/**
 * The app's Inngest path in this process: the mock model server, the Inngest
 * stand-in on loopback calling the serve handlers directly (the app's route
 * unless `handlers` builds others), and a test app (tests/support/test-app.ts)
 * pointed at both.
 */
export async function startInProcessInngest(
  options: Pick<StandinOptions, "mode" | "betweenSteps" | "retryDelayMs" | "sdkPackageJson"> & {
    /** Let the model title threads (see testApp). */
    titles?: boolean;
    /** More of the app's settings, as the variables they are read from. */
    settings?: Record<string, string>;
    /** Builds the serve handlers instead of importing the app's route, once the app is built. */
    handlers?: (app: App) => Promise<ServeHandlers>;
  } = {},
): Promise<InProcessInngest> {
  const { titles, settings = {}, handlers, mode = "checkpointed", retryDelayMs = 10, ...standinOptions } = options;
  const mock = await startMockModelServer();
  let serve: ServeHandlers | undefined;
  const standin = await startInngestStandin({
    ...standinOptions,
    mode,
    retryDelayMs,
    appFetch: (request) => serve![request.method as keyof ServeHandlers](request as never, undefined as never),
  });
  // The app turns checkpointing off as a self-hoster would; the stand-in then runs it one request per step either way.
  const base = { INNGEST_DEV: standin.url, INNGEST_CHECKPOINTING: mode === "async" ? "0" : "1", ...settings };
  const appWith = (more: Record<string, string>) => testApp({ modelUrl: mock.url, titles, settings: { ...base, ...more } });
  const app = appWith({});
  serve = handlers ? await handlers(app) : await import("@/app/api/inngest/route");
  return {
    mock,
    standin,
    app,
    appWith,
    async close() {
      await standin.idle();
      await standin.close();
      await mock.close();
      await app.close();
    },
  };
}

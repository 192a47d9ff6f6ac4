import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { setAppEnv } from "./app-env";
import { startInngestStandin, type InngestStandin, type StandinMode } from "./inngest-standin/index.mjs";

/** What the stand-in calls to run a step: the app's serve route, or a serve handler a test built itself (typed for Next's request, given a plain one). */
export type ServeHandlers = Record<"GET" | "POST" | "PUT", (request: never, context: never) => Promise<Response>>;

export interface InProcessInngest {
  mock: MockModelServer;
  standin: InngestStandin;
  /** Waits for the runs still going, then stops the stand-in and the mock model, and unsets the settings it added. */
  close(): Promise<void>;
}

type StandinOptions = NonNullable<Parameters<typeof startInngestStandin>[0]>;

/**
 * The app's Inngest path in this process: the mock model server, the Inngest
 * stand-in on loopback calling the serve handlers directly (the app's route
 * unless `handlers` builds others), and the app's environment pointing at both. Call it before the test's first import of
 * app code: the SDK reads its mode and URLs when the client is built.
 */
export async function startInProcessInngest(
  options: Pick<StandinOptions, "mode" | "betweenSteps" | "retryDelayMs" | "sdkPackageJson"> & {
    /** Let the model title threads (see setAppEnv). */
    titles?: boolean;
    /** More of the app's settings, set after the defaults and unset by close(). */
    env?: Record<string, string>;
    /** Builds the serve handlers instead of importing the app's route, once the environment is set. */
    handlers?: () => Promise<ServeHandlers>;
  } = {},
): Promise<InProcessInngest> {
  const { titles, env: extra = {}, handlers, mode = "checkpointed", retryDelayMs = 10, ...standinOptions } = options;
  const mock = await startMockModelServer();
  let serve: ServeHandlers | undefined;
  const standin = await startInngestStandin({
    ...standinOptions,
    mode,
    retryDelayMs,
    appFetch: (request) => serve![request.method as keyof ServeHandlers](request as never, undefined as never),
  });
  setAppEnv({ modelUrl: mock.url, inngestUrl: standin.url, titles });
  // The app turns checkpointing off as a self-hoster would; the stand-in then runs it one request per step either way.
  const env = { INNGEST_CHECKPOINTING: mode === "async" ? "0" : "1", ...extra };
  Object.assign(process.env, env);
  serve = handlers ? await handlers() : await import("@/app/api/inngest/route");
  return {
    mock,
    standin,
    async close() {
      await standin.idle();
      await standin.close();
      await mock.close();
      for (const name of Object.keys(env)) delete process.env[name];
    },
  };
}

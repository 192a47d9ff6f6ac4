import { SESSION_SECRET } from "./api";
import { TEST_DATABASE_URL, TEST_POOL_SIZE } from "./db";

/**
 * The environment the app's modules read, for tests that import them
 * in-process: the test database, the mock model (or, without `modelUrl`, the
 * built-in offline model), and optionally the Inngest stand-in. Set it before
 * the first import of app code. The model titles threads only with `titles`:
 * its title request would otherwise count among the requests a test expects.
 */
export function setAppEnv(options: { modelUrl?: string; inngestUrl?: string; titles?: boolean }): void {
  Object.assign(process.env, {
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: String(TEST_POOL_SIZE),
    SESSION_SECRET,
    ...(options.modelUrl ? mockModelEnv(options.modelUrl) : { MODEL_PROVIDER: "offline" }),
    ...(options.inngestUrl ? { INNGEST_DEV: options.inngestUrl } : {}),
    TITLE_TIMEOUT_SECONDS: options.titles ? "2" : "0",
  });
}

/** The variables that point the app at the mock model server (scripts/mock-model-server.mjs) at `url`. */
export function mockModelEnv(url: string): Record<string, string> {
  return { MODEL_PROVIDER: "openai-compatible", OPENAI_COMPATIBLE_BASE_URL: url, MODEL: "mock-model" };
}

import { createApp, useApp, type App, type AppParts } from "@/lib/app";
import type { RawEnv } from "@/lib/env";
import { parseEnv } from "@/lib/settings";
import { SESSION_SECRET } from "./api";
import { mockModelEnv } from "./app-env";
import { TEST_DATABASE_URL, TEST_POOL_SIZE } from "./db";

export interface TestAppSettings {
  /** The mock model server (scripts/mock-model-server.mjs) to answer with; unset: the built-in offline model. */
  modelUrl?: string;
  /** Let the model title threads; off, its title request would count among the requests a test expects. */
  titles?: boolean;
  /** Any other setting, as the variable it is read from (lib/settings.ts parses them as at start). */
  settings?: RawEnv;
}

/**
 * An app of the test's own, built from an object as the process builds its
 * own from the environment (lib/app.ts's createApp): the test database, the
 * mock or offline model, then `settings`. It takes the place of the app in
 * use, so the route handlers a test imports serve with it, until `close()`
 * (which ends its pool and puts back the app it replaced).
 */
export function testApp({ modelUrl, titles = false, settings = {} }: TestAppSettings = {}, parts: AppParts = {}): App {
  const config = parseEnv({
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_POOL_SIZE: String(TEST_POOL_SIZE),
    SESSION_SECRET,
    ...(modelUrl ? mockModelEnv(modelUrl) : { MODEL_PROVIDER: "offline" }),
    TITLE_TIMEOUT_SECONDS: titles ? "2" : "0",
    // Learning adds a model call after every reply: a test that counts the model's requests would count it; the memory tests ask for it.
    MEMORY_LEARNING: "off",
    NODE_ENV: "test",
    // The browser identity the suite's visitors carry (support/api.ts); the accounts tests ask for AUTH_MODE=accounts.
    AUTH_MODE: "open",
    ...settings,
  });
  const app = createApp(config, parts);
  const replaced = useApp(app);
  const close = app.close;
  app.close = async () => {
    useApp(replaced);
    await close();
  };
  return app;
}

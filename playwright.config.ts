import { defineConfig } from "@playwright/test";
import {
  APP_URL,
  E2E_APP_ENV,
  MOCK_MCP_PORT,
  MOCK_MCP_URL,
  E2E_INNGEST_APP_ENV,
  E2E_OPERATOR_APP_ENV,
  INNGEST_APP_URL,
  INNGEST_STANDIN_PORT,
  INNGEST_STANDIN_URL,
  MOCK_MODEL_PORT,
  MOCK_MODEL_URL,
  OPERATOR_APP_URL,
} from "./scripts/e2e-env.mjs";
import { CHROMIUM_ARGS, systemChromium } from "./scripts/browser.mjs";

// Runs against a production build: scripts/test.mjs builds the app and resets
// the e2e database before Playwright starts (a webServer cannot do either in
// the right order).
export default defineConfig({
  testDir: "tests/e2e",
  // Tests share the mock's canned replies by importing its plain-ESM module.
  // Playwright's TypeScript transform would rewrite it to CommonJS, which Node
  // then refuses to run as .mjs; left alone, Node loads it natively.
  build: { external: ["**/scripts/*.mjs"] },
  // One worker per project: each app serves its specs one at a time (they
  // share its mock model and its database), while the two runtimes' apps run
  // side by side, one per core.
  workers: 2,
  fullyParallel: false,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: Boolean(process.env.CI),
  timeout: 60_000,
  expect: { timeout: 15_000 },
  outputDir: ".test-output/e2e-artifacts",
  reporter: [["list"], ["json", { outputFile: ".test-output/e2e.json" }]],
  // The whole suite runs twice: turns inline, and turns on the Inngest runtime
  // (against the loopback stand-in in tests/support/inngest-standin).
  projects: [
    { name: "inline", workers: 1, use: { baseURL: APP_URL } },
    { name: "inngest", workers: 1, use: { baseURL: INNGEST_APP_URL } },
  ],
  use: {
    browserName: "chromium",
    // A system Chromium when there is one: build machines cannot download Playwright's.
    launchOptions: {
      executablePath: systemChromium(),
      args: CHROMIUM_ARGS,
    },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  webServer: [
    {
      name: "mock-model",
      command: "node scripts/mock-model-server.mjs",
      env: { MOCK_MODEL_PORT: String(MOCK_MODEL_PORT) },
      url: `${MOCK_MODEL_URL}/__requests`,
      reuseExistingServer: false,
      timeout: 15_000,
      gracefulShutdown: { signal: "SIGTERM", timeout: 2_000 },
    },
    {
      name: "mock-mcp",
      command: "node scripts/mock-mcp-server.mjs",
      env: { MOCK_MCP_PORT: String(MOCK_MCP_PORT) },
      url: `${MOCK_MCP_URL}/__calls`,
      reuseExistingServer: false,
      timeout: 15_000,
      gracefulShutdown: { signal: "SIGTERM", timeout: 2_000 },
    },
    {
      name: "app",
      // Creates the database when missing and applies migrations, then `next start`.
      command: "node scripts/run-app.mjs start",
      env: { ...E2E_APP_ENV },
      url: `${APP_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      // Lets the app close its database pool instead of being killed mid-write.
      gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
    },
    {
      // Only the history-policy spec visits it: an operator's setting against the page's URL.
      name: "app-operator",
      command: "node scripts/run-app.mjs start",
      env: { ...E2E_OPERATOR_APP_ENV },
      url: `${OPERATOR_APP_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
    },
    {
      name: "inngest-standin",
      command: "node tests/support/inngest-standin/index.mjs",
      env: {
        INNGEST_STANDIN_PORT: String(INNGEST_STANDIN_PORT),
        INNGEST_STANDIN_APP_URL: `${INNGEST_APP_URL}/api/inngest`,
        // Functions run checkpointed, as the SDK and Inngest run them by default (async: inngest-async-mode.test.ts).
        INNGEST_STANDIN_MODE: "checkpointed",
      },
      url: `${INNGEST_STANDIN_URL}/__standin/state`,
      reuseExistingServer: false,
      timeout: 15_000,
      gracefulShutdown: { signal: "SIGTERM", timeout: 2_000 },
    },
    {
      name: "app-inngest",
      command: "node scripts/run-app.mjs start",
      env: { ...E2E_INNGEST_APP_ENV },
      url: `${INNGEST_APP_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
    },
  ],
});

import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

// Files that change what the whole process sees (a module mocked, a global
// replaced, a listener on `process`): each runs in a process of its own.
const ALONE = ["tests/unit/**/*.test.ts", "tests/integration/turn-memory.test.ts", "tests/integration/inngest-realtime.test.ts"];

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL(".", import.meta.url)),
      // "server-only" throws outside React Server Components; tests run lib/ on the server anyway.
      "server-only": fileURLToPath(new URL("./tests/support/server-only.ts", import.meta.url)),
    },
  },
  test: {
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // On a Postgres server, four workers, each with a database of its own
    // (tests/support/global-setup.ts): most files wait on servers, models,
    // timers and the database (measured, the whole run kept about one core of
    // two busy), so four side by side finish in about 60% of the time two
    // take. Without TEST_DATABASE_URL the suites share one embedded Postgres,
    // one backend: test files take turns so their transactions never
    // interleave.
    maxWorkers: process.env.TEST_DATABASE_URL ? 4 : 1,
    fileParallelism: Boolean(process.env.TEST_DATABASE_URL),
    projects: [
      { extends: true, test: { name: "alone", include: ALONE } },
      {
        extends: true,
        // A worker keeps the modules it loaded from one file to the next:
        // the app is imported once per worker, not once per file (most of
        // an integration file's start-up), and each file builds and closes
        // apps of its own (tests/support/integration.ts).
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          exclude: ALONE,
          isolate: false,
          setupFiles: ["tests/support/next-globals.ts"],
        },
      },
    ],
  },
});

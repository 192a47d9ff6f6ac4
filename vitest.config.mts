import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL(".", import.meta.url)),
      // "server-only" throws outside React Server Components; tests run lib/ on the server anyway.
      "server-only": fileURLToPath(new URL("./tests/support/server-only.ts", import.meta.url)),
    },
  },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Without TEST_DATABASE_URL the suites share one embedded Postgres, one
    // backend: test files take turns so their transactions never interleave.
    fileParallelism: Boolean(process.env.TEST_DATABASE_URL),
  },
});

import { defineConfig } from "vitest/config";
import base from "./vitest.config.mts";

// The tests that start where a user starts (a clean copy of the committed
// tree): slow, and each starts servers and builds of its own, so they run as a
// step of their own after the other suites. Their two files share nothing (a
// copy, ports and a database each) and spend much of their time on npm's
// downloads, so they run side by side.
export default defineConfig({
  resolve: base.resolve,
  test: {
    include: ["tests/fresh-clone/**/*.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
});

import { defineConfig } from "vitest/config";
export default defineConfig({
  root: "/tmp/uicheck",
  resolve: { alias: { "@": "/work/main" } },
  test: { include: ["check.test.ts"] },
});

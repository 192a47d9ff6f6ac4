import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { cleanEnv, freePort } from "../support/fresh-copy";
import { ONCE_PROJECT } from "./helpers";

// `npm start` on the production build this suite runs against, with a bad
// setting: the server stops as it starts, with the one line that names the
// variable, instead of serving pages and failing the first turn that reads it.
// (tests/integration/settings-at-start.test.ts proves the same of `npm run dev`.)
test("npm start with a bad setting exits with one line naming the variable", async ({}, testInfo) => {
  test.skip(testInfo.project.name !== ONCE_PROJECT, "this spec runs a server of its own, once");
  test.setTimeout(120_000);
  // An embedded database of its own, so the start gets as far as the app itself.
  const dataDir = await mkdtemp(path.join(tmpdir(), "threadline-bad-setting-"));
  try {
    const child = spawn(process.execPath, ["scripts/run-app.mjs", "start"], {
      env: cleanEnv({
        HOME: tmpdir(),
        NEXT_TELEMETRY_DISABLED: "1",
        PORT: String(await freePort()),
        EMBEDDED_DB_DIR: dataDir,
        COMPACTION_TARGET_MESSAGES: "abc",
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));

    expect(code, output).not.toBe(0);
    const line = 'COMPACTION_TARGET_MESSAGES must be a whole number from 2 to 999999, not "abc".';
    expect(output.split(line), output).toHaveLength(2); // said once
    expect(output).not.toMatch(/^\s+at /m); // and no stack trace
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

import { spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "../support/db";
import { cleanEnv, freePort } from "../support/fresh-copy";

// `npm run dev` with a bad setting: the server stops as it starts, with one
// line naming the variable, rather than failing the first turn that reads it.
// (`npm start` needs a production build, which the end-to-end suite makes:
// tests/e2e/settings-at-start.spec.ts proves it there.)
let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
});

function startDev(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  child = spawn(process.execPath, ["scripts/run-app.mjs", "dev"], {
    env: cleanEnv({ HOME: tmpdir(), NEXT_TELEMETRY_DISABLED: "1", DATABASE_URL: TEST_DATABASE_URL, ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  return new Promise((resolve) => child!.on("exit", (code) => resolve({ code, output })));
}

describe("a bad setting at start", () => {
  it("stops the dev server with one line that names the variable, what it must be and what it was", async () => {
    const { code, output } = await startDev({ PORT: String(await freePort()), COMPACTION_TARGET_MESSAGES: "abc" });
    expect(code).not.toBe(0);
    const line = 'COMPACTION_TARGET_MESSAGES must be a whole number from 2 to 999999, not "abc".';
    expect(output.split(line)).toHaveLength(2); // said once
    expect(output).not.toMatch(/^\s+at /m); // and no stack trace
  }, 120_000);

  it("stops it for an MCP config that does not fit, naming the server and what is wrong", async () => {
    const config = JSON.stringify({ mcpServers: { docs: { url: "ftp://example.com/mcp" } } });
    const { code, output } = await startDev({ PORT: String(await freePort()), MCP_SERVERS: config });
    expect(code).not.toBe(0);
    const line = 'MCP_SERVERS server "docs": url must be an http:// or https:// URL.';
    expect(output.split(line)).toHaveLength(2);
    expect(output).not.toMatch(/^\s+at /m);
  }, 120_000);

  it("stops it for a mail server's URL without APP_URL, and nowhere prints the URL's password", async () => {
    const { code, output } = await startDev({ PORT: String(await freePort()), AUTH_MODE: "accounts", SMTP_URL: "smtps://ana:hunter2-secret@mail.example.org" });
    expect(code).not.toBe(0);
    const line = "SMTP_URL needs APP_URL: the links in its mails must name the address people reach the server at.";
    expect(output.split(line)).toHaveLength(2);
    expect(output).not.toContain("hunter2");
  }, 120_000);
});

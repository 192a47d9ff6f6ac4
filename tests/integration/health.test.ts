import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import * as health from "@/app/api/health/route";
import { integrationApp } from "../support/integration";

// GET /api/health says what a load balancer needs, and no response names its
// worker unless the operator asks (WORKER_HEADER).
// Each test starts from the default settings: one that asks for another builds its own app.
const t = integrationApp({ model: "offline" });


describe("GET /api/health", () => {
  it("answers status, runtime and whether the database answers, and nothing else", async () => {
    const response = await health.GET();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", runtime: "inline", database: "ok" });
    expect(response.headers.get("x-worker")).toBeNull();
  });

  it("names its process only with WORKER_HEADER=1", async () => {
    await t.configure({ WORKER_HEADER: "1" });
    expect((await health.GET()).headers.get("x-worker")).toBe(String(process.pid));
  });
});

describe("the server workers' preload", () => {
  /** What X-Worker a plain Node server with the preload sends, under `env`. */
  async function workerHeader(env: Record<string, string | undefined>): Promise<string | null> {
    const server = spawn(
      process.execPath,
      ["--import", "./scripts/worker-header.mjs", "-e", `require("node:http").createServer((q, s) => s.end("ok")).listen(0, "127.0.0.1", function () { console.log(this.address().port) })`],
      { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, WORKER_HEADER: undefined, ...env } },
    );
    try {
      const port = await new Promise<string>((resolve) => server.stdout!.once("data", (d) => resolve(String(d).trim())));
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      await answer.text();
      return answer.headers.get("x-worker");
    } finally {
      server.kill();
    }
  }

  it("adds no X-Worker by default, and the worker's pid with WORKER_HEADER=1", async () => {
    expect(await workerHeader({})).toBeNull();
    expect(await workerHeader({ WORKER_HEADER: "0" })).toBeNull();
    expect(await workerHeader({ WORKER_HEADER: "1" })).toMatch(/^\d+$/);
  });
});

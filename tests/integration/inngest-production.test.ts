import { spawn } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import * as route from "@/app/api/inngest/route";
import { CHAT_TURN_EVENT } from "@/lib/protocol/turn-events";
import { cleanEnv } from "../support/fresh-copy";
import { turnEventData } from "../support/turn-events";
import { integrationApp } from "../support/integration";

// Inngest as production runs it: with a signing key, /api/inngest runs only
// requests Inngest signed; the start script refuses dev mode in production.
const SIGNING_KEY = `signkey-test-${"ab12".repeat(16)}`;
const t = integrationApp({
  modelUrl: "http://127.0.0.1:9/v1",
  settings: { INNGEST_SIGNING_KEY: SIGNING_KEY, INNGEST_EVENT_KEY: "test-event-key", INNGEST_BASE_URL: "http://127.0.0.1:9" },
});

/** JSON with every object's keys sorted: the canonical form Inngest signs (RFC 8785, for strings and integers). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Inngest's request signature: HMAC-SHA256, keyed with the signing key minus its prefix, over the body and the timestamp. */
function sign(body: string, key = SIGNING_KEY): string {
  const t = Math.floor(Date.now() / 1000).toString();
  const s = createHmac("sha256", key.replace(/^signkey-\w+-/, "")).update(body + t).digest("hex");
  return `t=${t}&s=${s}`;
}

function execution(owner: string, content: string) {
  const event = { name: CHAT_TURN_EVENT, data: turnEventData({ owner, content }), id: randomUUID(), ts: Date.now() };
  const payload = {
    event,
    events: [event],
    steps: {},
    ctx: { run_id: randomUUID(), attempt: 0, max_attempts: 4, stack: { stack: [], current: 0 } },
    version: 2,
  };
  return canonicalJson(payload);
}

function post(body: string, signature?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature) headers["x-inngest-signature"] = signature;
  const request = new Request("http://localhost/api/inngest?fnId=threadline-chat-turn&stepId=step", { method: "POST", headers, body });
  return route.POST(request as never, undefined as never);
}

async function threadsOf(owner: string): Promise<number> {
  const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM threads WHERE owner = $1", [owner]);
  return rows[0].n;
}

describe("/api/inngest with a signing key", () => {
  it("refuses an unsigned or wrongly signed request and runs nothing", async () => {
    const owner = `owner-${randomUUID()}`;
    const body = execution(owner, "unsigned");
    for (const signature of [undefined, sign(body, `signkey-test-${"cd34".repeat(16)}`), sign(`${body} `), "t=1&s=00"]) {
      const response = await post(body, signature);
      expect(response.status, String(signature)).toBe(401);
    }
    expect(await threadsOf(owner)).toBe(0);
  });

  it("runs a request Inngest signed: its first step creates the thread", async () => {
    const owner = `owner-${randomUUID()}`;
    const body = execution(owner, "signed");
    const response = await post(body, sign(body));
    expect(response.status).toBe(206); // a step ran and its result goes back to Inngest
    expect(response.headers.get("x-inngest-signature")).toMatch(/^t=\d+&s=[0-9a-f]{64}$/);
    expect(await threadsOf(owner)).toBe(1);
  });
});

describe("the start script in production", () => {
  function start(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    const child = spawn(process.execPath, ["scripts/run-app.mjs", "start"], { env: cleanEnv({ HOME: tmpdir(), ...env }), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
  }

  it("refuses INNGEST_DEV with a message that says what to do instead", async () => {
    const { code, output } = await start({ INNGEST_DEV: "http://inngest:8288", DATABASE_URL: "postgres://nowhere.invalid/x" });
    expect(code).toBe(1);
    expect(output).toContain("INNGEST_DEV is set in production");
    expect(output).toContain("INNGEST_SIGNING_KEY");
    expect(output).not.toMatch(/^\s+at /m);
  });

  it("goes past that check when INNGEST_DEV_IS_LOCAL=1 declares the dev server local", async () => {
    const { output } = await start({ INNGEST_DEV: "1", INNGEST_DEV_IS_LOCAL: "1", DATABASE_URL: "postgres://nowhere.invalid/x" });
    expect(output).not.toContain("INNGEST_DEV is set in production");
  }, 30_000);
});

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseChunks, replyText } from "../support/api";

// The README's first command on a machine with no database configured: the
// app starts its embedded Postgres, keeps the data in a folder, and a restart
// finds the conversation (and the identity cookie's key) again.
const dataDir = await mkdtemp(path.join(tmpdir(), "threadline-embedded-"));
let app: ChildProcess | undefined;

afterAll(async () => {
  await stop();
  await rm(dataDir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function start(port: number): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOSTNAME: "127.0.0.1", EMBEDDED_DB_DIR: dataDir };
  for (const name of ["DATABASE_URL", "DATABASE_POOL_SIZE", "SESSION_SECRET", "MODEL_PROVIDER", "OPENAI_COMPATIBLE_BASE_URL", "INNGEST_DEV"]) {
    delete env[name];
  }
  app = spawn("npm", ["run", "dev"], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  app.stdout!.on("data", (d) => (output += d));
  app.stderr!.on("data", (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return output;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the app did not start:\n${output}`);
}

async function stop(): Promise<void> {
  const child = app;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid!, "SIGTERM"); // npm, the wrapper and Next.js together
  await exited;
  app = undefined;
}

describe("npm run dev with no DATABASE_URL", () => {
  it("runs on the embedded Postgres and keeps a conversation across a restart", { timeout: 240_000 }, async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const firstOutput = await start(port);
    expect(firstOutput).toContain("using the embedded Postgres (PGlite)");
    expect(firstOutput).toContain(dataDir);

    const page = await fetch(`${base}/`);
    const cookie = page.headers.get("set-cookie")!.split(";")[0];
    const response = await fetch(`${base}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ message: { id: "embedded-1", content: "Remember the embedded database" } }),
    });
    expect(response.status).toBe(200);
    const threadId = response.headers.get("x-thread-id")!;
    const reply = replyText(parseChunks(await response.text()));
    expect(reply).toContain('You wrote: "Remember the embedded database"');

    await stop();
    await start(port);

    const history = await fetch(`${base}/api/threads/${threadId}/history`, { headers: { cookie } });
    expect(history.status).toBe(200);
    const { messages } = await history.json();
    expect(messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["user", "Remember the embedded database"],
      ["assistant", reply],
    ]);
  });
});

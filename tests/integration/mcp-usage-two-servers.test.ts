import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { startMockMcpServer, type MockMcpServer } from "../../scripts/mock-mcp-server.mjs";
import pg from "pg";
import { recreateDatabase } from "@threadline/history/migrate";
import { TEST_DATABASE_URL } from "../support/db";
import { freePort } from "../support/fresh-copy";
import { send, type StartedApp } from "../support/production-app";
import { appServers, approvalAsked } from "../support/app-servers";
import { balancer } from "../support/balancer";
import type { ThreadUsage } from "@/lib/protocol/usage";

// An approved MCP call and the usage a turn stores, between two app servers
// (`npm start`, one worker each) on one database, counted where the effect
// lands: the MCP server's calls and the notes it keeps, and the model_usage
// rows against what the mock model reported for each call it finished.
// - two clicks on Approve, one through each server: one call;
// - the server running the approved call killed with SIGKILL while the MCP
//   server holds its answer (the note kept, the answer not yet back): the
//   other server calls again with the same idempotency key, and the note is
//   kept once;
// - the server killed after the call's result was kept, mid-answer: the other
//   finishes the reply without calling the tool again;
// - the same message sent through both at once: one answer, counted once.
// On the Inngest runtime the stand-in calls the two serve endpoints in turn,
// as behind a balancer, and retries a step whose server died on the other.
// The embedded database is one process's by design: skipped there. A
// database of the file's own: every server looks for any reply left undone
// in its database, and the suite's other files kill servers mid-reply, whose
// replies these servers would go on with, calling this file's mock model.

describe.skipIf(inject("embeddedDatabase")).each(["inline", "inngest"] as const)("MCP calls and usage across two app servers (%s runtime)", (runtime) => {
  let mcp: MockMcpServer;
  /** Under Inngest: each server's serve requests not yet answered, by port. */
  let open = new Map<number, number>();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_mcp_two_servers`;
  const db = new pg.Pool({ connectionString: url.toString(), max: 4 });
  // The database is dropped WITH (FORCE) between the runtimes: a connection still closing then hears the server
  // end it (57P01), which the pool would otherwise throw as an uncaught error.
  db.on("error", () => {});

  beforeAll(async () => {
    await recreateDatabase(url.toString());
    mcp = await startMockMcpServer({ port: await freePort(), lateMs: 4_000 });
  });
  // Registered before the servers, run after they stop: hooks after the tests run as a stack.
  afterAll(async () => {
    await mcp?.close();
    await db.end();
  });
  const servers = appServers(() => ({
    count: 2,
    database: url.toString(),
    modelEnv: (modelUrl) => ({ OPENAI_COMPATIBLE_BASE_URL: modelUrl, MODELS: "openai-compatible:mock-a, openai-compatible:mock-b" }),
    env: {
      MCP_SERVERS: JSON.stringify({ mcpServers: { notes: { url: mcp.url } } }),
      // Long: a reply the killed server left is taken over because its session ended, not its lease.
      TURN_LEASE_SECONDS: "30",
    },
    inngest:
      runtime === "inngest"
        ? {
            appFetch: (ports) => {
              const balanced = balancer(ports);
              open = balanced.open;
              return balanced.fetch;
            },
            retryDelayMs: 50,
          }
        : undefined,
  }));
  let a: StartedApp;
  let b: StartedApp;
  beforeAll(() => void ([a, b] = servers().apps));

  beforeEach(() => {
    mcp.calls.length = 0;
    mcp.notes.length = 0;
    servers().mock.usages.length = 0;
  });

  /**
   * The server running the reply: inline, the one the approval went to;
   * under Inngest, the one whose serve request is still open (the step
   * runs inside it), whichever the stand-in sent it to.
   */
  function running(): StartedApp {
    if (runtime === "inline") return a;
    const busy = [a, b].filter((app) => (open.get(app.port) ?? 0) > 0);
    expect(busy, "one server holds the running step").toHaveLength(1);
    return busy[0];
  }

  const chat = (app: StartedApp, body: Record<string, unknown>) => send(app.port, "POST", "/api/chat", { cookie: servers().cookie, json: body });
  const decide = (app: StartedApp, threadId: string, approvalId: string) =>
    send(app.port, "POST", `/api/threads/${threadId}/approvals/${approvalId}`, { cookie: servers().cookie, json: { approved: true } });
  const reply = async (threadId: string) =>
    (
      await db.query<{ status: string; model: string | null }>(
        "SELECT status, model FROM messages WHERE thread_id = $1 AND kind <> 'user' AND part_index = 0 ORDER BY seq DESC LIMIT 1",
        [threadId],
      )
    ).rows[0];
  const results = async (threadId: string) => (await db.query("SELECT 1 FROM messages WHERE thread_id = $1 AND kind = 'tool_result'", [threadId])).rowCount;
  /** The thread's stored usage: calls and tokens, as the mock's reports sum them. */
  const stored = async (threadId: string) => {
    const { rows } = await db.query<{ calls: string; input: string | null; output: string | null }>(
      "SELECT count(*) AS calls, sum(input_tokens) AS input, sum(output_tokens) AS output FROM model_usage WHERE thread_id = $1",
      [threadId],
    );
    return { calls: Number(rows[0].calls), inputTokens: Number(rows[0].input ?? 0), outputTokens: Number(rows[0].output ?? 0) };
  };
  const reported = () => ({
    calls: servers().mock.usages.length,
    inputTokens: servers().mock.usages.reduce((n, u) => n + u.inputTokens, 0),
    outputTokens: servers().mock.usages.reduce((n, u) => n + u.outputTokens, 0),
  });
  const usageThrough = async (app: StartedApp, threadId: string): Promise<ThreadUsage> => {
    const answer = await send(app.port, "GET", `/api/threads/${threadId}/usage`, { cookie: servers().cookie });
    expect(answer.status).toBe(200);
    return JSON.parse(await answer.text());
  };

  /** Asks on `app` for an MCP call that waits for approval: the thread and the approval. */
  const asked = async (app: StartedApp, content: string, model?: string) =>
    approvalAsked(await chat(app, { message: { id: randomUUID(), content }, ...(model ? { model } : {}) }));

  it("two clicks on Approve, one through each server: one is taken, the other refused, and the tool runs once; both servers count the same usage", { timeout: 60_000 }, async () => {
    const { threadId, approvalId } = await asked(a, '[[call:notes__record_note:{"text":"buy milk"}]]');
    const answers = await Promise.all([decide(a, threadId, approvalId), decide(b, threadId, approvalId)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
    await expect.poll(async () => (await reply(threadId))?.status, { timeout: 20_000 }).toBe("complete");
    expect(mcp.calls).toEqual([expect.objectContaining({ tool: "record_note", key: approvalId })]);
    expect(mcp.notes).toEqual([{ text: "buy milk", key: approvalId }]);
    expect(await results(threadId)).toBe(1);

    // Hand-over, the call, the answer after it: each call the model finished, stored once, read alike through either server.
    expect(await stored(threadId)).toEqual(reported());
    expect(reported().calls).toBe(3);
    const [throughA, throughB] = await Promise.all([usageThrough(a, threadId), usageThrough(b, threadId)]);
    expect(throughB).toEqual(throughA);
    expect(throughA.total).toMatchObject({ calls: 3, inputTokens: reported().inputTokens, outputTokens: reported().outputTokens });
  });

  it(
    "A killed with SIGKILL while the MCP server holds the approved call's answer: B calls again with the same key, the note is kept once, and the reply ends with one result",
    { timeout: 120_000 },
    async () => {
      const { threadId, approvalId } = await asked(a, '[[call:notes__late_note:{"text":"pay rent"}]]', "openai-compatible:mock-b");
      expect((await decide(a, threadId, approvalId)).status).toBe(202);
      await expect.poll(() => mcp.notes.length, { timeout: 15_000 }).toBe(1);
      expect(mcp.calls).toHaveLength(1);
      const killed = running();
      process.kill(-killed.child.pid!, "SIGKILL");
      await killed.exited;

      await expect.poll(async () => (await reply(threadId))?.status, { timeout: 30_000 }).toBe("complete");
      // The call was made again (its answer was lost with A), under the same key: the server changed nothing twice.
      expect(mcp.calls).toEqual([
        expect.objectContaining({ tool: "late_note", key: approvalId }),
        expect.objectContaining({ tool: "late_note", key: approvalId }),
      ]);
      expect(mcp.notes).toEqual([{ text: "pay rent", key: approvalId }]);
      expect(await results(threadId)).toBe(1);
      // The reply kept the model that began it; each finished call is stored once.
      expect((await reply(threadId))?.model).toBe("openai-compatible:mock-b");
      expect(await stored(threadId)).toEqual(reported());
      if (killed === a) a = await servers().restart(a);
      else b = await servers().restart(b);
    },
  );

  it(
    "A killed with SIGKILL mid-answer after the approved call's result was kept: B finishes the reply without calling the tool again, and counts what the model finished",
    { timeout: 120_000 },
    async () => {
      const { threadId, approvalId } = await asked(a, '[[slow]] [[call:notes__record_note:{"text":"water plants"}]]');
      expect((await decide(a, threadId, approvalId)).status).toBe(202);
      // The result is kept; the model is answering slowly after it.
      await expect.poll(() => results(threadId), { timeout: 20_000 }).toBe(1);
      expect((await reply(threadId))?.status).toBe("waiting");
      const killed = running();
      process.kill(-killed.child.pid!, "SIGKILL");
      await killed.exited;

      await expect.poll(async () => (await reply(threadId))?.status, { timeout: 40_000 }).toBe("complete");
      expect(mcp.calls).toEqual([expect.objectContaining({ tool: "record_note", key: approvalId })]);
      expect(mcp.notes).toHaveLength(1);
      expect(await results(threadId)).toBe(1);
      // The answer A's model was streaming never finished, so it reported nothing; B's did, and is stored once.
      expect(await stored(threadId)).toEqual(reported());
      if (killed === a) a = await servers().restart(a);
      else b = await servers().restart(b);
    },
  );

  it("the same message sent through both servers at once: one answer, and its call counted once", { timeout: 60_000 }, async () => {
    const threadId = randomUUID();
    const message = { id: randomUUID(), content: "double click" };
    const answers = await Promise.all([chat(a, { threadId, message }), chat(b, { threadId, message })]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const [one, two] = await Promise.all(answers.map((answer) => answer.stream.toEnd()));
    expect(two.reply).toBe(one.reply);
    expect(one.reply.length).toBeGreaterThan(0);
    await expect.poll(async () => (await reply(threadId))?.status, { timeout: 20_000 }).toBe("complete");
    expect(reported().calls).toBe(1);
    expect(await stored(threadId)).toEqual(reported());
  });

});

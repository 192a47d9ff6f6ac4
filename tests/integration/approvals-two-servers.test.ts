import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { mockModelEnv } from "../support/app-env";
import { TEST_DATABASE_URL, testPool } from "../support/db";
import { freePort, visit } from "../support/fresh-copy";
import { ensureProductionBuild, send, startApp, stopApps, type StartedApp } from "../support/production-app";
import { startInngestStandin, type InngestStandin } from "../support/inngest-standin/index.mjs";
import { balancer } from "../support/balancer";

// Approvals and reminders between two app servers (`npm start`, one worker
// each) on one database: a call asked on one is decided through the other,
// once; the server going on with an approved reminder is killed with SIGKILL
// mid-reply, and the other finishes the reply without running the tool
// again; the reminder posts once, whichever server looks. On the Inngest
// runtime the stand-in calls the two servers' serve endpoints in turn, as
// behind a balancer. The embedded database is one process's by design:
// skipped there.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(inject("embeddedDatabase")).each(["inline", "inngest"] as const)("tool approvals across two app servers (%s runtime)", (runtime) => {
  let mock: MockModelServer;
  let standin: InngestStandin | undefined;
  let env: Record<string, string>;
  let a: StartedApp;
  let b: StartedApp;
  let cookie: string;
  const db = testPool();

  beforeAll(async () => {
    await ensureProductionBuild();
    mock = await startMockModelServer({ port: await freePort() });
    const ports = [await freePort(), await freePort()];
    if (runtime === "inngest") standin = await startInngestStandin({ appFetch: balancer(ports).fetch, retryDelayMs: 50 });
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      WEB_CONCURRENCY: "1",
      ...mockModelEnv(mock.url),
      TITLE_TIMEOUT_SECONDS: "0",
      // Long: a reply the killed server left is taken over because its session ended, not its lease.
      TURN_LEASE_SECONDS: "30",
      TOOL_APPROVAL: "all",
      ...(standin ? { INNGEST_DEV: standin.url, INNGEST_DEV_IS_LOCAL: "1" } : {}),
    };
    [a, b] = ports.map((port) => startApp({ ...env, PORT: String(port) }));
    await Promise.all([a.ready(), b.ready()]);
    cookie = await visit(a.base);
  }, 900_000);

  afterAll(async () => {
    await standin?.idle();
    await standin?.close();
    await stopApps();
    await mock?.close();
    await db.end();
  });

  const chat = (app: StartedApp, content: string) => send(app.port, "POST", "/api/chat", { cookie, json: { message: { id: randomUUID(), content } } });
  const decide = (app: StartedApp, threadId: string, approvalId: string) =>
    send(app.port, "POST", `/api/threads/${threadId}/approvals/${approvalId}`, { cookie, json: { approved: true } });
  const replyStatus = async (threadId: string) =>
    (await db.query<{ status: string }>("SELECT status FROM messages WHERE thread_id = $1 AND kind <> 'user' AND part_index = 0 ORDER BY seq DESC LIMIT 1", [threadId])).rows[0]?.status;
  const results = async (threadId: string) =>
    (await db.query("SELECT 1 FROM messages WHERE thread_id = $1 AND kind = 'tool_result'", [threadId])).rowCount;

  /** Asks on `app` for a call that waits for approval: the thread and the approval. */
  async function asked(app: StartedApp, content: string) {
    const answer = await chat(app, content);
    expect(answer.status).toBe(200);
    await answer.stream.toEnd();
    const request = answer.stream.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
    expect(request, answer.stream.text).toBeDefined();
    return { threadId: String(answer.headers["x-thread-id"]), approvalId: request!.approvalId };
  }

  it("a call asked on A is approved through B, which goes on with it; the same approval through A is refused", { timeout: 60_000 }, async () => {
    const { threadId, approvalId } = await asked(a, '[[call:calculate:{"expression":"6 * 7"}]]');
    expect((await decide(b, threadId, approvalId)).status).toBe(202);
    const again = await decide(a, threadId, approvalId);
    expect(again.status).toBe(409);
    expect(JSON.parse(await again.text()).error.code).toBe("conflict:already_decided");
    await expect.poll(() => replyStatus(threadId), { timeout: 20_000 }).toBe("complete");
    expect(await results(threadId)).toBe(1);
  });

  it("A killed with SIGKILL while it goes on with an approved reminder: B finishes the reply without scheduling it again, and the reminder posts once", { timeout: 120_000 }, async () => {
    const due = new Date(Date.now() + 15_000).toISOString();
    const { threadId, approvalId } = await asked(a, `[[slow]] [[call:schedule_reminder:{"at":"${due}","text":"stretch"}]]`);
    const scheduled = async () => (await db.query("SELECT id FROM reminders WHERE thread_id = $1", [threadId])).rows;
    expect((await decide(a, threadId, approvalId)).status).toBe(202);
    // The tool has run (the reminder is there); A is mid-reply, its model answering slowly.
    await expect.poll(scheduled, { timeout: 15_000 }).toHaveLength(1);
    expect(await replyStatus(threadId)).toBe("waiting");
    process.kill(-a.child.pid!, "SIGKILL");
    await a.exited;

    // B finds the reply left undone once A's session is gone, and finishes it.
    await expect.poll(() => replyStatus(threadId), { timeout: 20_000 }).toBe("complete");
    expect(await scheduled()).toEqual([{ id: approvalId }]);
    expect(await results(threadId)).toBe(1);

    // A back up: two servers look for the reminder once it is due.
    a = startApp({ ...env, PORT: String(a.port) });
    await a.ready();
    const reminders = async () =>
      (await db.query<{ content: string }>("SELECT content FROM messages WHERE thread_id = $1 AND content = 'Reminder: stretch'", [threadId])).rows;
    await expect.poll(reminders, { timeout: 40_000 }).toHaveLength(1);
    await sleep(3_000);
    expect(await reminders()).toHaveLength(1);
  });
});

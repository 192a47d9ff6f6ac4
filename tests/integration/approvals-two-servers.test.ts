import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { appServers, approvalAsked } from "../support/app-servers";
import { balancer } from "../support/balancer";
import { blockPool } from "../support/db";
import { send, type StartedApp } from "../support/production-app";

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
  const db = blockPool();
  const servers = appServers({
    count: 2,
    env: {
      // Long: a reply the killed server left is taken over because its session ended, not its lease.
      TURN_LEASE_SECONDS: "30",
      TOOL_APPROVAL: "all",
    },
    inngest: runtime === "inngest" ? { appFetch: (ports) => balancer(ports).fetch, retryDelayMs: 50 } : undefined,
  });
  let a: StartedApp;
  let b: StartedApp;
  beforeAll(() => void ([a, b] = servers().apps));

  const chat = (app: StartedApp, content: string) => send(app.port, "POST", "/api/chat", { cookie: servers().cookie, json: { message: { id: randomUUID(), content } } });
  const decide = (app: StartedApp, threadId: string, approvalId: string) =>
    send(app.port, "POST", `/api/threads/${threadId}/approvals/${approvalId}`, { cookie: servers().cookie, json: { approved: true } });
  const replyStatus = async (threadId: string) =>
    (await db.query<{ status: string }>("SELECT status FROM messages WHERE thread_id = $1 AND kind <> 'user' AND part_index = 0 ORDER BY seq DESC LIMIT 1", [threadId])).rows[0]?.status;
  const results = async (threadId: string) =>
    (await db.query("SELECT 1 FROM messages WHERE thread_id = $1 AND kind = 'tool_result'", [threadId])).rowCount;

  /** Asks on `app` for a call that waits for approval: the thread and the approval. */
  const asked = async (app: StartedApp, content: string) => approvalAsked(await chat(app, content));

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
    a = await servers().restart(a);
    const reminders = async () =>
      (await db.query<{ content: string }>("SELECT content FROM messages WHERE thread_id = $1 AND content = 'Reminder: stretch'", [threadId])).rows;
    await expect.poll(reminders, { timeout: 40_000 }).toHaveLength(1);
    await sleep(3_000);
    expect(await reminders()).toHaveLength(1);
  });
});

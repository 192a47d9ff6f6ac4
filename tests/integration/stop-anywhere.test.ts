import { randomUUID } from "node:crypto";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { MIGRATION_LOCK_KEY, MigrationLockTimeout, migrate, recreateDatabase } from "@threadline/history/migrate";
import { NotificationListener } from "@/lib/live/listener";
import { holdLease } from "@/lib/agent/turn/turn-claims";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { ActiveTurns } from "@/lib/runtime/active-turns";
import { hearStop, STOP_CHANNEL, TurnStops } from "@/lib/runtime/turn-stops";
import { params, readWords, replyText, request, restChunks } from "../support/api";
import { TEST_DATABASE_URL } from "../support/db";
import * as chat from "@/app/api/chat/route";
import * as stopRoute from "@/app/api/threads/[id]/stop/route";
import { integrationApp } from "../support/integration";

// Several app servers share one database: a turn runs in one of them, while a
// second message or a Stop may reach another. Here "another process" is what
// a process is made of, built a second time: its own pool, adapter, running
// turns and Stop listener, beside the app's (the route handlers in-process).
// The embedded database is one process's by design (no listener): skipped there.
describe.skipIf(inject("embeddedDatabase"))("one turn per thread and Stop, across processes", () => {
  // A lease renewed every 200 s: a Stop that arrives within a test came by NOTIFY.
  const t = integrationApp({ settings: { TURN_LEASE_SECONDS: "600" } });
  /** The other process's database view. */
  const elsewhere = new PostgresHistoryAdapter(t.pool);

  const msg = (content: string) => ({ id: randomUUID(), content });
  const send = (body: unknown) => chat.POST(request("/api/chat", { method: "POST", cookie: t.me.cookie, json: body }), undefined);
  const stop = (threadId: string) => stopRoute.POST(request(`/api/threads/${threadId}/stop`, { method: "POST", cookie: t.me.cookie }), params(threadId));
  const userMessages = async (threadId: string) =>
    (await t.pool.query<{ message_id: string }>("SELECT message_id FROM messages WHERE thread_id = $1 AND kind = 'user' ORDER BY seq", [threadId])).rows.map(
      (r) => r.message_id,
    );

  /** A thread with one answered message, and a turn of it opened by another process (its ActiveTurns, not this one's). */
  async function threadRunningElsewhere() {
    const first = await send({ message: msg("hello") });
    const threadId = first.headers.get("x-thread-id")!;
    await first.text();
    const running = { messageId: randomUUID(), turnId: randomUUID() };
    const opened = await elsewhere.turns.openTurn({
      owner: t.me.id,
      threadId,
      ...running,
      leaseMs: 60_000,
      message: { id: running.messageId, role: "user", content: "answered by another server" },
    });
    expect(opened.claim).toEqual({ claimed: true });
    return { threadId, running };
  }

  it("refuses a second message while another process's turn runs in the thread, and takes it once that turn is done", async () => {
    const { threadId, running } = await threadRunningElsewhere();
    const second = msg("impatient, on another server");
    const refused = await send({ threadId, message: second });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toEqual({
      code: "conflict:turn_in_progress",
      message: "A reply is still being written in this thread. Wait for it or press Stop.",
    });
    expect(await userMessages(threadId)).not.toContain(second.id);

    await elsewhere.turns.finishTurn({ owner: t.me.id, ...running, status: "done" });
    const taken = await send({ threadId, message: second });
    expect(taken.status).toBe(200);
    await taken.text();
    expect((await userMessages(threadId)).at(-1)).toBe(second.id);
  });

  it("Stop for a turn another process runs is recorded, announced on the channel, and found by that turn's lease renewal", async () => {
    const { threadId, running } = await threadRunningElsewhere();
    const heard: string[] = [];
    const listener = new NotificationListener(TEST_DATABASE_URL, { [STOP_CHANNEL]: (payload) => heard.push(payload) });
    try {
      await listener.ready();
      const response = await stop(threadId);
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ stopped: true });
      await expect.poll(() => heard.map((p) => JSON.parse(p))).toContainEqual({ threadId, turnId: running.turnId });
      expect(await elsewhere.turns.renewTurn({ owner: t.me.id, ...running, leaseMs: 60_000 })).toEqual({ held: true, stopRequested: true });
    } finally {
      await listener.close();
    }
  });

  it("a Stop meant for an earlier turn of the message does not stop the turn that took it over", async () => {
    const { threadId, running } = await threadRunningElsewhere();
    expect(await elsewhere.turns.requestStop({ owner: t.me.id, threadId })).toEqual({ turns: [running.turnId], settled: [] });
    await elsewhere.turns.finishTurn({ owner: t.me.id, ...running, status: "failed" });
    const next = randomUUID();
    expect(await elsewhere.turns.claimTurn({ owner: t.me.id, threadId, messageId: running.messageId, turnId: next, leaseMs: 60_000 })).toEqual({ claimed: true });
    expect(await elsewhere.turns.renewTurn({ owner: t.me.id, messageId: running.messageId, turnId: next, leaseMs: 60_000 })).toEqual({
      held: true,
      stopRequested: false,
    });
  });

  it("Stop with no turn running anywhere answers stopped: false", async () => {
    const first = await send({ message: msg("done already") });
    const threadId = first.headers.get("x-thread-id")!;
    await first.text();
    expect(await (await stop(threadId)).json()).toEqual({ stopped: false });
  });

  it("a Stop asked of another process ends the slow reply this process runs, keeping what was written, status stopped", async () => {
    const response = await send({ message: msg("[[slow]] stop me from the other server") });
    const threadId = response.headers.get("x-thread-id")!;
    const underway = await readWords(response, 4);

    // The other process: it runs no turn, and hears Stops on its own connection.
    const theirs = new ActiveTurns();
    const listener = new NotificationListener(TEST_DATABASE_URL, { [STOP_CHANNEL]: (payload) => hearStop(theirs, payload) });
    try {
      await listener.ready();
      expect(await new TurnStops(theirs, () => elsewhere.turns).stop(t.me.id, threadId)).toEqual({ stopped: true, settled: [] });
    } finally {
      await listener.close();
    }

    const chunks = await restChunks(underway);
    expect(chunks).toContainEqual({ type: "data-status", data: { status: "stopped" }, transient: true });
    const partial = replyText(chunks);
    const { rows } = await t.pool.query("SELECT kind, content, status FROM messages WHERE thread_id = $1 ORDER BY seq", [threadId]);
    expect(rows[1]).toMatchObject({ kind: "assistant", status: "stopped", content: partial });
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(150);
  });

  it("a turn whose Stop notification was missed finds the Stop when it renews its lease", async () => {
    const { threadId, running } = await threadRunningElsewhere();
    // Recorded without NOTIFY, as if the listening connection had been down.
    await t.pool.query("UPDATE turns SET stop_requested_turn = turn_id WHERE thread_id = $1 AND turn_id = $2", [threadId, running.turnId]);
    let stopped = false;
    const lease = holdLease({ owner: t.me.id, turnId: running.turnId, messageId: running.messageId }, elsewhere.turns, 3_000, () => (stopped = true));
    try {
      await expect.poll(() => stopped, { timeout: 5_000 }).toBe(true);
    } finally {
      lease.stop();
    }
  });
});

describe.skipIf(inject("embeddedDatabase"))("migrations started at the same moment", () => {
  const fresh = (() => {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `${url.pathname}_migrate_race`;
    return url.toString();
  })();

  it("both runs succeed on a fresh database: each waits for the lock, one migrates, the other finds nothing to do", async () => {
    await recreateDatabase(fresh);
    // A run already under way holds the lock as the two start, so they surely overlap.
    const holder = new pg.Client({ connectionString: fresh });
    await holder.connect();
    let runs: Promise<{ stdout: string }[]>;
    try {
      await holder.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
      const run = () => promisify(execFile)(process.execPath, ["scripts/migrate.mjs"], { env: { ...process.env, DATABASE_URL: fresh } });
      runs = Promise.all([run(), run()]);
      runs.catch(() => {});
      // Both waiting: connected, and not gone with "Another migration is already running".
      await expect
        .poll(async () => (await holder.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'threadline-migrate'")).rows[0].n, {
          timeout: 10_000,
        })
        .toBe(2);
    } finally {
      await holder.end();
    }
    const [a, b] = await runs;
    const said = [a.stdout, b.stdout].join("\n");
    expect(said).toContain("[threadline] applied migrations:");
    expect(said).toContain("[threadline] database schema is up to date");
    const client = new pg.Client({ connectionString: fresh });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string; distinct_n: string }>("SELECT count(*) AS n, count(DISTINCT name) AS distinct_n FROM pgmigrations");
      expect(rows[0].n).toBe(rows[0].distinct_n);
    } finally {
      await client.end();
    }
  });

  it("gives up with a clear error when another run never lets go of the lock", async () => {
    await recreateDatabase(fresh);
    const holder = new pg.Client({ connectionString: fresh });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
      const error = await migrate(fresh, { lockWaitMs: 600 }).catch((e: Error) => e);
      expect(error).toBeInstanceOf(MigrationLockTimeout);
      expect((error as Error).message).toMatch(/^another migration run has held the database's migration lock for 1 s/);
    } finally {
      await holder.end();
    }
    // Released: the run goes through.
    expect((await migrate(fresh)).length).toBeGreaterThan(0);
  });
});

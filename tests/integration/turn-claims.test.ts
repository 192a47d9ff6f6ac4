import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { NotificationListener } from "@/lib/live/listener";
import { RunnerLock } from "@/lib/db/runner-lock";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { ThreadRepository } from "@/lib/threads/repository";
import { WINGS } from "@/lib/wings";
import { TEST_DATABASE_URL } from "../support/db";
import { databaseTargets, onDatabase } from "../support/db-targets";

// Who answers a user's message, one rule per case, as the database decides it
// (threadline_open_turn and the claim asked again while a turn waits). The
// thread page's "still running" reads the same rule: each case checks that it
// agrees with what a second turn would be told.
const LEASE_MS = 60_000;

describe.each(databaseTargets())("the claim on a message, on the $name", (target) => {
  const db = onDatabase(target);
  let owner: string;
  beforeEach(() => {
    owner = `owner-${randomUUID()}`;
  });

  /** Opens turn `turnId` for message `messageId` in `threadId`, as a turn does. */
  const openTurn = (threadId: string, messageId: string, turnId: string, leaseMs: number | null = LEASE_MS) =>
    db.adapter.turns.openTurn({ owner, threadId, messageId, turnId, leaseMs, message: { id: messageId, role: "user", content: `text of ${messageId}` } });
  const claim = (threadId: string, messageId: string, turnId: string) => db.adapter.turns.claimTurn({ owner, threadId, messageId, turnId, leaseMs: LEASE_MS });
  const userRows = async (threadId: string) =>
    (await db.pool.query<{ message_id: string; seq: string }>("SELECT message_id, seq FROM messages WHERE thread_id = $1 AND kind = 'user' ORDER BY seq", [threadId]))
      .rows;
  /** The runner died: its lease ran out (set in the past rather than waited for). */
  const leaseRunsOut = (messageId: string) =>
    db.pool.query("UPDATE turns SET lease_until = now() - interval '1 second' WHERE owner = $1 AND message_id = $2", [owner, messageId]);

  it("a new thread: the turn creates it, claims the message and stores it", async () => {
    const threadId = randomUUID();
    const opened = await openTurn(threadId, "m1", "turn-1");
    expect(opened).toMatchObject({ threadId, created: true, messages: 0, claim: { claimed: true }, userSeq: 1 });
    expect(await userRows(threadId)).toEqual([{ message_id: "m1", seq: "1" }]);
    expect(await db.repo.pendingTurn(owner, threadId)).toEqual({ messageId: "m1", state: "running" });
  });

  it("the same turn again (a retried step, the same request resent): claimed again, the message stored once", async () => {
    const threadId = randomUUID();
    await openTurn(threadId, "m1", "turn-1");
    const again = await openTurn(threadId, "m1", "turn-1");
    expect(again).toMatchObject({ created: false, messages: 1, claim: { claimed: true }, userSeq: 1 });
    expect(await claim(threadId, "m1", "turn-1")).toEqual({ claimed: true });
    expect(await userRows(threadId)).toEqual([{ message_id: "m1", seq: "1" }]);
  });

  it("a failed turn: a new turn claims the message and answers the one stored, not a copy", async () => {
    const threadId = randomUUID();
    await openTurn(threadId, "m1", "turn-1");
    await db.adapter.turns.finishTurn({ owner, messageId: "m1", turnId: "turn-1", status: "failed" });
    expect(await db.repo.pendingTurn(owner, threadId)).toEqual({ messageId: "m1", state: "interrupted" });
    const retried = await openTurn(threadId, "m1", "turn-2");
    expect(retried).toMatchObject({ claim: { claimed: true }, userSeq: 1 });
    expect(await userRows(threadId)).toEqual([{ message_id: "m1", seq: "1" }]);
    expect(await db.repo.pendingTurn(owner, threadId)).toEqual({ messageId: "m1", state: "running" });
  });

  it("a turn whose lease ran out (its runner died): a waiting turn takes it over, and so does a new one", async () => {
    const threadId = randomUUID();
    await openTurn(threadId, "m1", "turn-1");
    expect(await claim(threadId, "m1", "turn-2")).toEqual({ claimed: false, threadId, running: true });
    await leaseRunsOut("m1");
    expect(await db.repo.pendingTurn(owner, threadId)).toEqual({ messageId: "m1", state: "interrupted" });
    expect(await claim(threadId, "m1", "turn-2")).toEqual({ claimed: true });

    await leaseRunsOut("m1");
    const takeover = await openTurn(threadId, "m1", "turn-3");
    expect(takeover).toMatchObject({ claim: { claimed: true }, userSeq: 1 });
    expect(await userRows(threadId)).toEqual([{ message_id: "m1", seq: "1" }]);
  });

  it("a duplicate waiting for a turn that died: refused while another message's turn has taken the thread, granted once it is free", async () => {
    const threadId = randomUUID();
    await openTurn(threadId, "m1", "turn-1");
    expect(await claim(threadId, "m1", "turn-2")).toEqual({ claimed: false, threadId, running: true });
    await leaseRunsOut("m1");
    // A new message takes the thread first: the waiting duplicate must not answer m1 beside it.
    expect((await openTurn(threadId, "m2", "turn-3")).claim).toEqual({ claimed: true });
    await expect(claim(threadId, "m1", "turn-2")).rejects.toMatchObject({ code: "conflict:turn_in_progress" });
    const running = await db.pool.query("SELECT message_id FROM turns WHERE thread_id = $1 AND threadline_turn_running(turns)", [threadId]);
    expect(running.rows).toEqual([{ message_id: "m2" }]);
    await db.adapter.turns.finishTurn({ owner, messageId: "m2", turnId: "turn-3", status: "done" });
    expect(await claim(threadId, "m1", "turn-2")).toEqual({ claimed: true });
    expect(await userRows(threadId)).toEqual([
      { message_id: "m1", seq: "1" },
      { message_id: "m2", seq: "2" },
    ]);
  });

  it("a duplicate that takes over its dead turn first: a new message is refused while it runs", async () => {
    const threadId = randomUUID();
    await openTurn(threadId, "m1", "turn-1");
    await leaseRunsOut("m1");
    expect(await claim(threadId, "m1", "turn-2")).toEqual({ claimed: true });
    await expect(openTurn(threadId, "m2", "turn-3")).rejects.toMatchObject({ code: "conflict:turn_in_progress" });
    expect((await userRows(threadId)).map((row) => row.message_id)).toEqual(["m1"]);
  });

  it("a turn still running: the message sent again by another turn is refused, told where it runs, and stored once", async () => {
    const threadId = randomUUID();
    await openTurn(threadId, "m1", "turn-1");
    const second = await openTurn(threadId, "m1", "turn-2");
    expect(second.claim).toEqual({ claimed: false, threadId, running: true });
    expect(second.userSeq).toBeUndefined();
    // A durable run holds its turn without a lease: it never runs out.
    const durableThread = randomUUID();
    await openTurn(durableThread, "m2", "turn-3", null);
    expect((await openTurn(durableThread, "m2", "turn-4")).claim).toEqual({ claimed: false, threadId: durableThread, running: true });
    expect(await db.repo.pendingTurn(owner, durableThread)).toEqual({ messageId: "m2", state: "running" });
    expect(await userRows(threadId)).toEqual([{ message_id: "m1", seq: "1" }]);
  });

  it("a finished turn: the message is not answered again; its reply is given back instead", async () => {
    const threadId = randomUUID();
    await openTurn(threadId, "m1", "turn-1");
    const reply = { id: "r1", role: "assistant" as const, parts: [{ type: "text" as const, text: "the answer" }], status: "complete" as const };
    await db.adapter.appendResults({ owner, threadId, reply, turn: { messageId: "m1", turnId: "turn-1" } });
    expect(await db.repo.pendingTurn(owner, threadId)).toBeNull();
    const resent = await openTurn(threadId, "m1", "turn-2");
    expect(resent.claim).toEqual({ claimed: false, threadId, running: false });
    const stored = await db.adapter.turns.replyTo({ owner, threadId, messageId: "m1" });
    expect(stored.reply?.parts).toEqual([{ type: "text", text: "the answer" }]);
  });

  it("another thread is unaffected: its own messages are claimed, and a message is never claimed across threads", async () => {
    const first = randomUUID();
    const other = randomUUID();
    await openTurn(first, "m1", "turn-1");
    expect((await openTurn(other, "m2", "turn-2")).claim).toEqual({ claimed: true });
    // The same message sent to another thread belongs to the thread it went to first, running or not.
    expect((await openTurn(other, "m1", "turn-3")).claim).toEqual({ claimed: false, threadId: first, running: true });
    await db.adapter.turns.finishTurn({ owner, messageId: "m1", turnId: "turn-1", status: "failed" });
    expect((await openTurn(other, "m1", "turn-4")).claim).toEqual({ claimed: false, threadId: first, running: false });
    expect((await userRows(other)).map((row) => row.message_id)).toEqual(["m2"]);
    expect(await db.repo.pendingTurn(owner, other)).toEqual({ messageId: "m2", state: "running" });
  });

  it("another owner's thread: refused, with nothing claimed or stored", async () => {
    const threadId = randomUUID();
    await db.adapter.createThread({ owner: "someone-else", threadId });
    await expect(openTurn(threadId, "m1", "turn-1")).rejects.toMatchObject({ code: "not_found:thread" });
    const { rows } = await db.pool.query("SELECT 1 FROM turns WHERE owner = $1", [owner]);
    expect(rows).toEqual([]);
    expect(await userRows(threadId)).toEqual([]);
  });
});

// A running turn dies with its runner's database session (its process), not
// only with its lease: here the lease is long, and the session is a client of
// the test's that takes the process's runner lock and then ends. The embedded
// database runs one backend for every connection, so a session there never
// ends on its own: its turns are told by the lease alone (above).
describe.skipIf(inject("embeddedDatabase"))("a turn's runner, on the Postgres server", () => {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4 });
  let owner: string;
  beforeEach(() => {
    owner = `owner-${randomUUID()}`;
  });
  afterAll(() => pool.end());

  /** A process's session: its own connection holding its runner lock, and the adapter that records its key. */
  async function runnerProcess() {
    const session = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await session.connect();
    const lock = new RunnerLock();
    await lock.take(session);
    const key = await lock.current();
    const adapter = new PostgresHistoryAdapter(pool, () => {}, () => lock.current());
    return { adapter, key, end: () => session.end() };
  }
  const open = (adapter: PostgresHistoryAdapter, threadId: string, messageId: string, turnId: string, leaseMs: number | null = LEASE_MS) =>
    adapter.turns.openTurn({ owner, threadId, messageId, turnId, leaseMs, message: { id: messageId, role: "user", content: `text of ${messageId}` } });
  const running = async (threadId: string) =>
    (await pool.query<{ message_id: string }>("SELECT message_id FROM turns WHERE thread_id = $1 AND threadline_turn_running(turns) ORDER BY message_id", [threadId])).rows.map(
      (row) => row.message_id,
    );
  /** What follows a session's end comes soon after it, not at once: polled for, within a bound. */
  async function eventually(condition: () => Promise<boolean>) {
    for (const until = Date.now() + 10_000; !(await condition()); ) {
      if (Date.now() > until) throw new Error("what a session's end brings did not happen");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("records the key of the session running it; while that session lives, another message waits and a resend does not take over", async () => {
    const runner = await runnerProcess();
    try {
      const threadId = randomUUID();
      await open(runner.adapter, threadId, "m1", "turn-1");
      const { rows } = await pool.query("SELECT runner::text FROM turns WHERE owner = $1 AND message_id = 'm1'", [owner]);
      expect(rows).toEqual([{ runner: runner.key }]);
      const elsewhere = new PostgresHistoryAdapter(pool);
      await expect(open(elsewhere, threadId, "m2", "turn-2")).rejects.toMatchObject({ code: "conflict:turn_in_progress" });
      expect((await open(elsewhere, threadId, "m1", "turn-3")).claim).toEqual({ claimed: false, threadId, running: true });
      expect(await running(threadId)).toEqual(["m1"]);
    } finally {
      await runner.end();
    }
  });

  it("dies with its session, its lease still long: the thread takes a new message, and the message can be answered again", async () => {
    const runner = await runnerProcess();
    const threadId = randomUUID();
    await open(runner.adapter, threadId, "m1", "turn-1");
    await runner.end();
    await eventually(async () => (await running(threadId)).length === 0);
    expect(await new ThreadRepository(pool, WINGS).pendingTurn(owner, threadId)).toEqual({ messageId: "m1", state: "interrupted" });

    const elsewhere = new PostgresHistoryAdapter(pool);
    expect((await open(elsewhere, threadId, "m1", "turn-2")).claim).toEqual({ claimed: true });
    await elsewhere.turns.finishTurn({ owner, messageId: "m1", turnId: "turn-2", status: "failed" });
    expect((await open(elsewhere, threadId, "m2", "turn-3")).claim).toEqual({ claimed: true });
  });

  it("a process whose connection drops while it lives keeps its turns by their leases, and takes its key back as it connects again", async () => {
    const lock = new RunnerLock(() => pool);
    const listener = new NotificationListener(TEST_DATABASE_URL, { threadline_test_nothing: () => {} }, { session: lock, retryMs: 200 });
    try {
      await listener.ready();
      const key = await lock.current();
      expect(key).not.toBeNull();
      const adapter = new PostgresHistoryAdapter(pool, () => {}, () => lock.current());
      const threadId = randomUUID();
      await open(adapter, threadId, "m1", "turn-1");
      // The connection is cut from the database's side (a restart, a proxy), while the process goes on.
      await pool.query(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND classid = ($1::bigint >> 32)::oid AND objid = ($1::bigint & 4294967295)::oid",
        [key],
      );
      await eventually(async () => (await pool.query("SELECT 1 FROM turns WHERE owner = $1 AND message_id = 'm1' AND runner IS NULL", [owner])).rowCount === 1);
      expect(await running(threadId)).toEqual(["m1"]);
      await expect(open(new PostgresHistoryAdapter(pool), threadId, "m2", "turn-2")).rejects.toMatchObject({ code: "conflict:turn_in_progress" });
      // Connected again, under the same key: the turn's next renewal records it.
      await eventually(async () => (await lock.current()) === key);
      await adapter.turns.renewTurn({ owner, messageId: "m1", turnId: "turn-1", leaseMs: LEASE_MS });
      const { rows } = await pool.query("SELECT runner::text FROM turns WHERE owner = $1 AND message_id = 'm1'", [owner]);
      expect(rows).toEqual([{ runner: key }]);
      expect(await running(threadId)).toEqual(["m1"]);
    } finally {
      await listener.close();
    }
  });

  it("a durable run records no runner: it holds its turn whatever happens to the process that opened it", async () => {
    const runner = await runnerProcess();
    const threadId = randomUUID();
    await open(runner.adapter, threadId, "m1", "turn-1", null);
    await runner.end();
    const { rows } = await pool.query("SELECT runner FROM turns WHERE owner = $1 AND message_id = 'm1'", [owner]);
    expect(rows).toEqual([{ runner: null }]);
    expect(await running(threadId)).toEqual(["m1"]);
  });
});

import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { appServers, expectAnsweredOnceMore, modelCallsFor, storedMessages } from "../support/app-servers";
import { blockPool } from "../support/db";
import { threadBusy } from "@threadline/history/errors";
import { WAITING_NOTICE } from "@/lib/protocol/chat";
import { send, type Answer, type StartedApp } from "../support/production-app";

// A turn dies with the server running it. Three app servers (`npm start`, one
// worker each) on one database, their leases long (30 s): a server killed
// with SIGKILL mid-reply frees its thread for the others within seconds, for
// a new message and for a Retry, because the database sees its session end;
// a server alive is never taken over. When the runner dies while the same
// message waits on another server, that duplicate and a new message race for
// the thread, and one of them gets it. The embedded database is one
// process's by design (and tells a dead turn by its lease): skipped there.

/** The bound the behaviour promises: a thread whose runner was killed takes a new message within this long. */
const FREED_WITHIN_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(inject("embeddedDatabase"))("a dead runner frees its thread at once (three app servers, one database)", () => {
  // Long against the bound: a thread freed within it was freed by the runner's session, not by its lease.
  const db = blockPool();
  const servers = appServers({ count: 3, env: { TURN_LEASE_SECONDS: "30" } });
  let a: StartedApp;
  let b: StartedApp;
  let c: StartedApp;
  beforeAll(() => void ([a, b, c] = servers().apps));

  const msg = (content: string) => ({ id: randomUUID(), content });
  const chat = (app: StartedApp, body: unknown) => send(app.port, "POST", "/api/chat", { cookie: servers().cookie, json: body });
  const stored = (threadId: string) => storedMessages(db, threadId);
  const runningTurns = async (threadId: string) =>
    (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM turns WHERE thread_id = $1 AND threadline_turn_running(turns)", [threadId])).rows[0].n;

  /** A slow reply that `app` is writing in a new thread, a few words in. */
  async function slowReplyOn(app: StartedApp, content: string) {
    const message = msg(`[[slow]] ${content}`);
    const running = await chat(app, { message });
    expect(running.status).toBe(200);
    const threadId = String(running.headers["x-thread-id"]);
    await running.stream.words(3);
    return { message, running, threadId };
  }

  /** kill -9 of the server and everything it started; its stream breaks off. */
  async function kill(app: StartedApp, running: Answer): Promise<number> {
    process.kill(-app.child.pid!, "SIGKILL");
    await app.exited;
    const killedAt = Date.now();
    await running.stream.toEnd();
    expect(running.stream.chunks.some((chunk) => chunk.type === "finish")).toBe(false);
    return killedAt;
  }

  /** The server, started again on its port if a test before killed it. */
  async function alive(app: StartedApp): Promise<StartedApp> {
    if (app.child.exitCode === null && app.child.signalCode === null) return app;
    return servers().restart(app);
  }

  const refusalOf = async (answer: Answer) => ({ status: answer.status, code: (JSON.parse(await answer.text()) as { error: { code: string } }).error.code });

  it("while A writes a reply, B refuses a new message in the thread, and the same message sent again through B waits for A's answer instead of taking it over", { timeout: 60_000 }, async () => {
    const { message, running, threadId } = await slowReplyOn(a, "written by A, which stays alive");

    expect(await refusalOf(await chat(b, { threadId, message: msg("a second message while A writes") }))).toEqual({
      status: 409,
      code: "conflict:turn_in_progress",
    });
    // Its answer begins once A's turn has ended: the reply A stored.
    const resent = chat(b, { threadId, message });
    await running.stream.toEnd();
    expect(running.stream.reply).toBe(SLOW_REPLY);
    const again = await resent;
    expect(again.status).toBe(200);
    await again.stream.toEnd();
    expect(again.stream.reply).toBe(SLOW_REPLY);
    expect(modelCallsFor(servers().mock, message.content)).toBe(1);
    expect((await stored(threadId)).filter((m) => m.kind === "assistant")).toEqual([expect.objectContaining({ content: SLOW_REPLY, status: "complete" })]);
  });

  it("A killed mid-reply: B takes a new message in its thread within seconds, long before the dead turn's lease runs out", { timeout: 120_000 }, async () => {
    a = await alive(a);
    const { message, running, threadId } = await slowReplyOn(a, "cut off when A is killed");
    const killedAt = await kill(a, running);

    const next = msg("after the crash");
    let answer = await chat(b, { threadId, message: next });
    while (answer.status === 409) {
      await answer.text();
      if (Date.now() - killedAt > FREED_WITHIN_MS) throw new Error(`B still refused a new message ${FREED_WITHIN_MS} ms after the thread's runner was killed`);
      await sleep(100);
      answer = await chat(b, { threadId, message: next });
    }
    expect(answer.status).toBe(200);
    await answer.stream.toEnd();
    expect(answer.stream.reply).toContain('You said: "after the crash"');
    // The dead turn's lease is still live: what freed the thread was the end of A's session.
    const { rows } = await db.query("SELECT lease_until > now() AS leased FROM turns WHERE message_id = $1", [message.id]);
    expect(rows).toEqual([{ leased: true }]);
    expect((await stored(threadId)).map((m) => [m.message_id, m.kind])).toEqual([
      [message.id, "user"],
      [next.id, "user"],
      [expect.any(String), "assistant"],
    ]);
  });

  it("A killed mid-reply: the same message sent again through B (Retry) is answered within seconds, once", { timeout: 120_000 }, async () => {
    a = await alive(a);
    const { message, running, threadId } = await slowReplyOn(a, "cut off, then retried");
    const callsBefore = modelCallsFor(servers().mock, message.content);
    const killedAt = await kill(a, running);

    // It waits for the dead turn until the database says it is dead, then takes the message over.
    const retried = chat(b, { threadId, message });
    const answer = await Promise.race([retried, sleep(FREED_WITHIN_MS - (Date.now() - killedAt)).then(() => undefined)]);
    if (!answer) throw new Error(`the Retry was not answered ${FREED_WITHIN_MS} ms after the thread's runner was killed`);
    await expectAnsweredOnceMore(answer, { db, mock: servers().mock, threadId, message, callsBefore });
  });

  it("C killed while the same message waits on B: that duplicate and a new message sent through A race, and only one of them runs", { timeout: 120_000 }, async () => {
    a = await alive(a);
    const { message, running, threadId } = await slowReplyOn(c, "its duplicate and a new message race once C dies");
    // The duplicate is answered at once, saying that it waits; how its wait ends comes down its stream.
    const duplicate = await chat(b, { threadId, message });
    expect(duplicate.status).toBe(200);
    await duplicate.stream.until((s) => s.chunks.some((chunk) => chunk.type === "data-notice"));
    expect(duplicate.stream.chunks[0]).toMatchObject({ type: "data-notice", data: { text: WAITING_NOTICE } });
    let settled = false;
    const decided = duplicate.stream.until((s) => s.chunks.some((chunk) => chunk.type === "text-delta" || chunk.type === "error")).then(() => (settled = true));

    // A new message through A, asked again and again from before C dies until it is answered or the duplicate is:
    // it is asked more often than the duplicate's wait asks, so it wins most races.
    const next = msg("[[slow]] a new message racing the duplicate");
    const asking = (async () => {
      for (const until = Date.now() + 30_000; ; await sleep(20)) {
        const answer = await chat(a, { threadId, message: next });
        if (answer.status !== 409 || settled) return answer;
        await answer.text();
        if (Date.now() > until) throw new Error("neither the duplicate nor the new message got the thread");
      }
    })();
    await sleep(300);
    await kill(c, running);
    const fresh = await asking;
    await decided;
    const duplicateWon = duplicate.stream.chunks.some((chunk) => chunk.type === "text-delta");
    expect(duplicateWon).toBe(fresh.status !== 200);
    if (duplicateWon) expect(await refusalOf(fresh)).toEqual({ status: 409, code: "conflict:turn_in_progress" });
    else expect(duplicate.stream.chunks.filter((chunk) => chunk.type === "error")).toEqual([{ type: "error", errorText: threadBusy().message }]);
    // Both replies are slow: the winner is still writing.
    expect(await runningTurns(threadId)).toBe(1);

    const won = duplicateWon ? duplicate : fresh;
    await won.stream.toEnd();
    const winner = duplicateWon ? message : next;
    expect(won.stream.reply).toBe(SLOW_REPLY);
    const rows = await stored(threadId);
    expect(rows.filter((m) => m.kind === "assistant")).toEqual([expect.objectContaining({ content: SLOW_REPLY, status: "complete" })]);
    expect(rows.filter((m) => m.kind === "user").map((m) => m.message_id)).toEqual(winner === next ? [message.id, next.id] : [message.id]);
    const { rows: done } = await db.query<{ message_id: string }>("SELECT message_id FROM turns WHERE thread_id = $1 AND status = 'done'", [threadId]);
    expect(done).toEqual([{ message_id: winner.id }]);
  });
});

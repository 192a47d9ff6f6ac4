import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import pg from "pg";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { CRASH_APP_URL, CRASH_INNGEST_APP_PORT, CRASH_STANDIN_PORT } from "../../scripts/e2e-env.mjs";
import { holdDatabase, LEASE_SECONDS, startServer } from "./own-server";
import { assistantMessages, expectReplyFinished, threadAlert, userMessages } from "./helpers";

// The production server is killed with SIGKILL while three replies stream, and
// started again: no user message is lost or doubled, every thread takes its
// next message once its dead turn is seen dead (one turn per thread is the
// database's rule), and each interrupted question can be answered again,
// once. The database stays up (its own process). On a Postgres server
// (E2E_DATABASE_URL) a turn dies with its server's session, at once; on the
// embedded one, whose single backend outlives the server, its lease runs out
// after TURN_LEASE_SECONDS (2 here).


test.use({ baseURL: CRASH_APP_URL });

/** How many of these messages' turns are in this state. */
async function turnsIn(db: pg.Client, messageIds: string[], status: "running" | "done"): Promise<number> {
  const { rows } = await db.query("SELECT count(*)::int AS n FROM turns WHERE message_id = ANY($1) AND status = $2", [messageIds, status]);
  return rows[0].n;
}

/** How many of these messages' turns still count as running: their runner's session lives and their lease has not run out. */
async function liveTurns(db: pg.Client, messageIds: string[]): Promise<number> {
  const { rows } = await db.query("SELECT count(*)::int AS n FROM turns WHERE message_id = ANY($1) AND threadline_turn_running(turns)", [messageIds]);
  return rows[0].n;
}

/** The reply text of a chat response's event stream. */
function replyOf(events: string): string {
  return events
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string })
    .map((chunk) => (chunk.type === "text-delta" ? chunk.delta : ""))
    .join("");
}

/** Starts a turn from the page and reads its stream until it ends or the server dies; the thread id. */
function startTurn(page: Page, id: string, content: string): Promise<string | null> {
  return page.evaluate(
    async ({ id, content }) => {
      const response = await fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: { id, content } }),
      });
      const reader = response.body!.getReader();
      try {
        while (!(await reader.read()).done);
      } catch {
        // the server died mid-stream
      }
      return response.headers.get("x-thread-id");
    },
    { id, content },
  );
}

/**
 * Three turns from the page; once every message is stored and its reply is
 * streaming, the server dies. Their message ids, and the threads the streams named.
 */
async function killMidReplies(page: Page, db: pg.Client, server: ChildProcess, label: string) {
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const streams = ids.map((id, i) => startTurn(page, id, `[[slow]] ${label} ${i} ${id.slice(0, 8)}`));
  await expect.poll(() => turnsIn(db, ids, "running")).toBe(3);
  await page.waitForTimeout(1_500);
  server.kill("SIGKILL");
  return { ids, threadIds: (await Promise.all(streams)) as string[] };
}

test("a server killed mid-reply loses no message, and every thread answers again", async ({ page }, testInfo) => {
  test.skip(testInfo.project.name !== "inline", "the crash test runs a server of its own, once");
  test.setTimeout(180_000);
  const database = await holdDatabase();
  const db = new pg.Client({ connectionString: database.url });
  let server = await startServer(database);
  try {
    await db.connect();
    await page.goto("/");
    const { ids, threadIds } = await killMidReplies(page, db, server, "crash");
    expect(new Set(threadIds).size).toBe(3);

    server = await startServer(database);
    const users = await db.query("SELECT message_id, count(*)::int AS n FROM messages WHERE message_id = ANY($1) GROUP BY message_id", [ids]);
    expect(users.rows.map((r) => r.n)).toEqual([1, 1, 1]);

    // The dead turns are seen dead: their server's session ended, or their leases ran out (a live server would have renewed them)...
    await expect.poll(() => liveTurns(db, ids), { timeout: LEASE_SECONDS * 1_000 + 5_000 }).toBe(0);
    // ...and the first thread takes a new message.
    const next = await page.request.post("/api/chat", { data: { threadId: threadIds[0], message: { id: randomUUID(), content: "after the crash" } } });
    expect(next.status()).toBe(200);
    expect(replyOf(await next.text())).toContain('You said: "after the crash"');

    // The second: its page says the reply was interrupted, and Retry answers the same message.
    await page.goto(`/c/${threadIds[1]}`);
    await expect(threadAlert(page)).toContainText("The reply was interrupted");
    await threadAlert(page).getByRole("button", { name: "Retry" }).click();
    await expect(assistantMessages(page).last()).toContainText(SLOW_REPLY.slice(0, 40));
    await expectReplyFinished(page);
    await page.reload();
    await expect(userMessages(page)).toHaveCount(1);
    await expect(assistantMessages(page)).toHaveCount(1);

    // The third: sending the same message again answers it, once.
    const again = await page.request.post("/api/chat", { data: { threadId: threadIds[2], message: { id: ids[2], content: `[[slow]] crash 2 ${ids[2].slice(0, 8)}` } } });
    expect(again.status()).toBe(200);
    const replies = await db.query("SELECT count(DISTINCT message_id)::int AS n FROM messages WHERE thread_id = $1 AND kind = 'assistant'", [threadIds[2]]);
    expect(replies.rows[0].n).toBe(1);
    const sameAgain = await page.request.post("/api/chat", { data: { threadId: threadIds[2], message: { id: ids[2], content: "ignored" } } });
    expect(replyOf(await sameAgain.text())).toBe(SLOW_REPLY);
    expect((await db.query("SELECT count(DISTINCT message_id)::int AS n FROM messages WHERE thread_id = $1 AND kind = 'assistant'", [threadIds[2]])).rows[0].n).toBe(1);
  } finally {
    server.kill("SIGKILL");
    await db.end().catch(() => {});
    database.process.kill("SIGTERM");
  }
});

test("on the Inngest runtime, the durable runs of a killed server finish their replies once it is back", async ({ page }, testInfo) => {
  test.skip(testInfo.project.name !== "inline", "the crash test runs a server of its own, once");
  test.setTimeout(180_000);
  const database = await holdDatabase();
  const db = new pg.Client({ connectionString: database.url });
  const appUrl = `http://127.0.0.1:${CRASH_INNGEST_APP_PORT}`;
  // Its own stand-in, which waits between attempts long enough for the app to come back.
  const standin = spawn(process.execPath, ["tests/support/inngest-standin/index.mjs"], {
    env: { ...process.env, INNGEST_STANDIN_PORT: String(CRASH_STANDIN_PORT), INNGEST_STANDIN_APP_URL: `${appUrl}/api/inngest`, INNGEST_STANDIN_RETRY_DELAY_MS: "4000" },
    stdio: "inherit",
  });
  const inngest = { INNGEST_DEV: `http://127.0.0.1:${CRASH_STANDIN_PORT}`, INNGEST_DEV_IS_LOCAL: "1" };
  let server = await startServer(database, CRASH_INNGEST_APP_PORT, inngest);
  try {
    await db.connect();
    await page.goto(appUrl);
    const { ids, threadIds } = await killMidReplies(page, db, server, "durable crash");
    server = await startServer(database, CRASH_INNGEST_APP_PORT, inngest);

    // Nobody is listening any more; the runs finish anyway, each storing one reply.
    await expect
      .poll(() => turnsIn(db, ids, "done"), { timeout: 90_000 })
      .toBe(3);
    for (const threadId of threadIds) {
      const { rows } = await db.query("SELECT kind, content FROM messages WHERE thread_id = $1 AND kind IN ('user', 'assistant') ORDER BY seq", [threadId]);
      expect(rows.map((row) => row.kind)).toEqual(["user", "assistant"]);
      expect(rows[1].content).toBe(SLOW_REPLY);
    }
    // The runs were checkpointed (the SDK's default, as in production): the kill cut off the request that was
    // running their steps, and the retry went on from the steps the SDK had reported.
    type Run = { fnId: string; mode: string; requests: { status: number }[]; checkpoints: unknown[] };
    const state = (await (await fetch(`http://127.0.0.1:${CRASH_STANDIN_PORT}/__standin/state`)).json()) as { runs: Run[] };
    const turns = state.runs.filter((run) => run.fnId === "threadline-chat-turn");
    expect(turns.every((run) => run.mode === "checkpointed" && run.checkpoints.length > 0)).toBe(true);
    expect(turns.filter((run) => run.requests.some((request) => request.status === 0)).length).toBeGreaterThanOrEqual(3);
  } finally {
    server.kill("SIGKILL");
    standin.kill("SIGTERM");
    await db.end().catch(() => {});
    database.process.kill("SIGTERM");
  }
});

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { SLOW_REPLY, startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { recreateDatabase } from "@threadline/history/migrate";
import { mockModelEnv } from "../support/app-env";
import { TEST_DATABASE_URL } from "../support/db";
import { freePort, visit } from "../support/fresh-copy";
import { ensureProductionBuild, send, startApp, stopApps, type StartedApp } from "../support/production-app";
import { startInngestStandin, type InngestStandin } from "../support/inngest-standin/index.mjs";
import { balancer } from "../support/balancer";

// A durable turn holds no lease: Inngest ends it, through the run's own catch
// or its retries. A server killed with SIGKILL mid-reply, and still down on
// the run's last attempt, runs no catch: the run fails for good with its turn
// open. Its failure handler (Inngest's onFailure, run once the server is
// back: Inngest retries it with backoff, the stand-in's fetch here waits)
// ends the turn, so the same message sent again is answered and the thread
// takes a new message. One server (`npm start`, one worker) on a database of
// the file's own: a server looks for replies left undone in its database at
// start, and the suite's other files leave some.

describe.skipIf(inject("embeddedDatabase"))("a durable run whose server dies on every attempt", () => {
  let mock: MockModelServer;
  let standin: InngestStandin;
  let env: Record<string, string>;
  let app: StartedApp;
  let cookie: string;
  /** Resolved once the killed server is up again: the failure handler's request waits for it. */
  let serverBack: () => void = () => {};
  let back = Promise.resolve();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_durable_run_failed`;
  const db = new pg.Pool({ connectionString: url.toString(), max: 2 });

  beforeAll(async () => {
    await ensureProductionBuild();
    await recreateDatabase(url.toString());
    mock = await startMockModelServer({ port: await freePort() });
    const port = await freePort();
    const balanced = balancer([port]);
    standin = await startInngestStandin({
      retryDelayMs: 50,
      appFetch: async (request) => {
        if (new URL(request.url).searchParams.get("fnId")?.endsWith("-failure")) await back;
        return balanced.fetch(request);
      },
    });
    env = {
      DATABASE_URL: url.toString(),
      PORT: String(port),
      WEB_CONCURRENCY: "1",
      ...mockModelEnv(mock.url),
      TITLE_TIMEOUT_SECONDS: "0",
      INNGEST_DEV: standin.url,
      INNGEST_DEV_IS_LOCAL: "1",
    };
    app = startApp(env);
    await app.ready();
    cookie = await visit(app.base);
  }, 900_000);

  afterAll(async () => {
    serverBack();
    await standin?.idle();
    await standin?.close();
    await stopApps();
    await mock?.close();
    await db.end();
  });

  const chat = (body: Record<string, unknown>) => send(app.port, "POST", "/api/chat", { cookie, json: body });
  const turnOf = async (messageId: string) =>
    (await db.query<{ status: string }>("SELECT status FROM turns WHERE message_id = $1", [messageId])).rows[0]?.status;
  const stored = async (threadId: string) =>
    (await db.query<{ message_id: string; kind: string }>("SELECT message_id, kind FROM messages WHERE thread_id = $1 AND part_index = 0 ORDER BY seq", [threadId]))
      .rows;

  it("ends the turn once the run has failed: the same message sent again is answered once, and the thread takes a new message", { timeout: 120_000 }, async () => {
    const message = { id: randomUUID(), content: "[[slow]] cut off for good" };
    const answer = await chat({ message });
    expect(answer.status).toBe(200);
    const threadId = String(answer.headers["x-thread-id"]);
    await answer.stream.words(3);
    expect(await turnOf(message.id)).toBe("running");

    back = new Promise((resolve) => (serverBack = resolve));
    process.kill(-app.child.pid!, "SIGKILL");
    await app.exited;
    // Every attempt after the kill finds no server: the run fails for good, its turn still open.
    await expect.poll(() => standin.runs.find((run) => run.fnId === "threadline-chat-turn")?.status, { timeout: 20_000 }).toBe("failed");
    expect(await turnOf(message.id)).toBe("running");

    app = startApp(env);
    await app.ready();
    serverBack();
    await standin.idle();
    expect(await turnOf(message.id)).toBe("failed");
    expect(standin.runs.find((run) => run.fnId === "threadline-chat-turn-failure")?.status).toBe("completed");
    // A client still following the turn (through another server) hears its end rather than waiting for its idle timeout.
    const turnId = String(standin.events.find((event) => (event.data.message as { id?: string } | undefined)?.id === message.id)?.data.turnId);
    const last = standin.published.filter((published) => published.channel.includes(turnId)).at(-1);
    expect((last?.data as { messages: { chunk: unknown }[] }).messages.map((m) => m.chunk)).toEqual([
      { type: "error", errorText: "The server failed while answering. Please try again." },
    ]);

    // Retry: the same message sent again is answered, once.
    const calls = mock.requests.length;
    const again = await chat({ threadId, message });
    expect(again.status).toBe(200);
    await again.stream.toEnd();
    expect(again.stream.reply).toBe(SLOW_REPLY);
    expect(mock.requests.length).toBe(calls + 1);

    const next = { id: randomUUID(), content: "after the failed run" };
    const nextAnswer = await chat({ threadId, message: next });
    expect(nextAnswer.status).toBe(200);
    await nextAnswer.stream.toEnd();
    expect(nextAnswer.stream.reply).toContain('You said: "after the failed run"');
    await standin.idle();
    expect((await stored(threadId)).map((m) => [m.message_id, m.kind])).toEqual([
      [message.id, "user"],
      [expect.any(String), "assistant"],
      [next.id, "user"],
      [expect.any(String), "assistant"],
    ]);
  });
});

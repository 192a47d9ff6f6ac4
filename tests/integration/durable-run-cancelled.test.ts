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

// A durable turn holds no lease: its run ends it. A run cancelled from
// Inngest's dashboard or REST API stops between steps and runs no catch and no
// failure handler; Inngest sends inngest/function.cancelled instead, and the
// app's handler of it ends the turn the run had opened, so the thread takes
// the next message. A step running when the cancel comes runs to its end (as
// Inngest lets it), but the one after it, which stores the reply, does not:
// the client sees the words, then hears the reply was not kept. One server
// (`npm start`, one worker) on a database of the file's own: a server looks
// for replies left undone in its database at start, and the suite's other
// files leave some.

describe.skipIf(inject("embeddedDatabase"))("a durable run cancelled from Inngest", () => {
  let mock: MockModelServer;
  let standin: InngestStandin;
  let env: Record<string, string>;
  let app: StartedApp;
  let cookie: string;
  /** Resolved once a killed server is up again: the cancel handler's request waits for it, as Inngest's retries would. */
  let serverBack: () => void = () => {};
  let back = Promise.resolve();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_durable_run_cancelled`;
  const db = new pg.Pool({ connectionString: url.toString(), max: 2 });

  beforeAll(async () => {
    await ensureProductionBuild();
    await recreateDatabase(url.toString());
    mock = await startMockModelServer({ port: await freePort() });
    const port = await freePort();
    const balanced = balancer([port]);
    standin = await startInngestStandin({
      // Long enough to cancel a run while it waits to retry an attempt its killed server dropped.
      retryDelayMs: 5_000,
      appFetch: async (request) => {
        if (new URL(request.url).searchParams.get("fnId")?.endsWith("-cancelled")) await back;
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
    (await db.query<{ message_id: string; kind: string; content: string }>(
      "SELECT message_id, kind, content FROM messages WHERE thread_id = $1 AND part_index = 0 ORDER BY seq",
      [threadId],
    )).rows;
  const turnIdOf = (messageId: string) =>
    String(standin.events.find((event) => (event.data.message as { id?: string } | undefined)?.id === messageId)?.data.turnId);
  const chatRunOf = (messageId: string) => {
    const eventId = standin.events.find((event) => (event.data.message as { id?: string } | undefined)?.id === messageId)?.id;
    return standin.runs.find((run) => run.fnId === "threadline-chat-turn" && run.eventId === eventId);
  };
  /** What an operator does from Inngest's dashboard: its REST API's cancel. */
  const cancel = async (runId: string) => (await fetch(`${standin.url}/v1/runs/${runId}`, { method: "DELETE" })).status;
  async function answered(threadId: string, content: string) {
    const next = { id: randomUUID(), content };
    const answer = await chat({ threadId, message: next });
    expect(answer.status).toBe(200);
    await answer.stream.toEnd();
    expect(answer.stream.reply).toContain(`You said: "${content}"`);
  }

  it("cancelled while it waits to retry its killed server's attempt: its turn ends, the client hears why, the same message sent again is answered once", { timeout: 120_000 }, async () => {
    const message = { id: randomUUID(), content: "[[slow]] cancelled between attempts" };
    const answer = await chat({ message });
    expect(answer.status).toBe(200);
    const threadId = String(answer.headers["x-thread-id"]);
    await answer.stream.words(3);

    back = new Promise((resolve) => (serverBack = resolve));
    process.kill(-app.child.pid!, "SIGKILL");
    await app.exited;
    // The attempt the server dropped has failed; the run waits to try again.
    await expect.poll(() => chatRunOf(message.id)?.requests.some((request) => request.status === 0), { timeout: 20_000 }).toBe(true);
    const run = chatRunOf(message.id)!;
    expect(await cancel(run.id)).toBe(200);
    await expect.poll(() => run.status, { timeout: 10_000 }).toBe("cancelled");
    // No attempt followed the cancel, and nothing ended the turn yet.
    expect(run.requests).toHaveLength(1);
    expect(await turnOf(message.id)).toBe("running");

    app = startApp(env);
    await app.ready();
    serverBack();
    await standin.idle();
    expect(standin.runs.find((r) => r.fnId === "threadline-chat-turn-cancelled")?.status).toBe("completed");
    expect(await turnOf(message.id)).toBe("failed");
    // A client still following the turn (through another server) hears its end rather than waiting for its idle timeout.
    const last = standin.published.filter((published) => published.channel.includes(turnIdOf(message.id))).at(-1);
    expect((last?.data as { messages: { chunk: unknown }[] }).messages.map((m) => m.chunk)).toEqual([
      { type: "error", errorText: "This reply was cancelled on the server. Send your message again for an answer." },
    ]);

    // Retry: the same message sent again is answered, once.
    const calls = mock.requests.length;
    const again = await chat({ threadId, message });
    expect(again.status).toBe(200);
    await again.stream.toEnd();
    expect(again.stream.reply).toBe(SLOW_REPLY);
    expect(mock.requests.length).toBe(calls + 1);

    await answered(threadId, "after the cancelled run");
    await standin.idle();
    expect((await stored(threadId)).map((m) => [m.message_id, m.kind])).toEqual([
      [message.id, "user"],
      [expect.any(String), "assistant"],
      [expect.any(String), "user"],
      [expect.any(String), "assistant"],
    ]);
  });

  it("cancelled while its server writes the reply: the words come to their end, the client then hears that the reply was not kept, and the same message sent again is answered", { timeout: 120_000 }, async () => {
    const message = { id: randomUUID(), content: "[[slow]] cancelled mid-reply" };
    const answer = await chat({ message });
    expect(answer.status).toBe(200);
    const threadId = String(answer.headers["x-thread-id"]);
    await answer.stream.words(3);

    const run = chatRunOf(message.id)!;
    expect(await cancel(run.id)).toBe(200);
    // The model's step runs to its end, as Inngest lets a running step; the step that stores the reply never runs.
    await answer.stream.toEnd();
    expect(answer.stream.reply).toBe(SLOW_REPLY);
    expect(answer.stream.chunks.at(-1)).toEqual({
      type: "error",
      errorText: "This reply was cancelled on the server. Send your message again for an answer.",
    });
    await standin.idle();
    expect(run.status).toBe("cancelled");
    expect(run.steps).not.toContain("append-results");
    expect(await turnOf(message.id)).toBe("failed");
    expect((await stored(threadId)).map((m) => m.kind)).toEqual(["user"]);

    const calls = mock.requests.length;
    const again = await chat({ threadId, message });
    expect(again.status).toBe(200);
    await again.stream.toEnd();
    expect(again.stream.reply).toBe(SLOW_REPLY);
    expect(mock.requests.length).toBe(calls + 1);
    await answered(threadId, "after the reply that was cancelled");
  });
});

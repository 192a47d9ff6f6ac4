import pg from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";
import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { recreateDatabase } from "@threadline/history/migrate";
import { mockModelEnv } from "./app-env";
import { balancer } from "./balancer";
import { TEST_DATABASE_URL } from "./db";
import { freePort, visit } from "./fresh-copy";
import { startInngestStandin, type InngestStandin, type StandinRun } from "./inngest-standin/index.mjs";
import { ensureProductionBuild, send, startApp, stopApps, type Answer, type StartedApp } from "./production-app";

/**
 * One production server (`npm start`, one worker) on the Inngest stand-in and
 * a database of its own (a server looks for replies left undone in its
 * database at start, and the suite's other files leave some), for the tests
 * of a durable run that ends without finishing its turn: the server is
 * killed with SIGKILL and started again, and the requests for the run's
 * handler (its function id ending in `heldUntilBack`) wait until it is back,
 * as Inngest's retries with backoff would.
 */
export interface OneDurableServer {
  standin: InngestStandin;
  mock: MockModelServer;
  db: pg.Pool;
  chat(body: Record<string, unknown>): Promise<Answer>;
  /** The status of the turn answering `messageId`. */
  turnOf(messageId: string): Promise<string | undefined>;
  /** The thread's messages (their first parts), in order. */
  stored(threadId: string): Promise<{ message_id: string; kind: string; content: string }[]>;
  /** The turn id the chat event for `messageId` carried (its realtime channel names it). */
  turnIdOf(messageId: string): string;
  /** The chat-turn run that answers `messageId`. */
  chatRunOf(messageId: string): StandinRun | undefined;
  /** kill -9 of the server and everything it started; the handler's requests wait from now on. */
  kill(): Promise<void>;
  /** The server started again; the handler's requests go on. */
  restart(): Promise<void>;
  /** What the server (the one running now) printed. */
  output(): string;
  close(): Promise<void>;
}

interface OneDurableServerOptions {
  /** Names the server's database, after the test database's. */
  name: string;
  /** How long the stand-in waits before it tries a failed attempt again. */
  retryDelayMs: number;
  /** The end of the function id whose requests wait while the server is down. */
  heldUntilBack: string;
  /** More of the server's settings. */
  env?: Record<string, string>;
}

/** The server for a describe block: started in its beforeAll, closed in its afterAll; what is answered reads it in its tests. */
export function oneDurableServer(options: OneDurableServerOptions): () => OneDurableServer {
  let server: OneDurableServer | undefined;
  beforeAll(async () => {
    server = await startOneDurableServer(options);
  }, 900_000);
  afterAll(() => server?.close());
  // A failure is told by the server's log: its end is printed with it.
  afterEach((context) => {
    if (context.task.result?.state === "fail" && server) console.error(`--- the durable server's log's end:\n${server.output().slice(-4000)}`);
  });
  return () => {
    if (!server) throw new Error("oneDurableServer: the server starts in the block's beforeAll");
    return server;
  };
}

async function startOneDurableServer({ name, retryDelayMs, heldUntilBack, env: more = {} }: OneDurableServerOptions): Promise<OneDurableServer> {
  await ensureProductionBuild();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_${name}`;
  await recreateDatabase(url.toString());
  const db = new pg.Pool({ connectionString: url.toString(), max: 2 });
  const mock = await startMockModelServer({ port: await freePort() });
  const port = await freePort();
  const balanced = balancer([port]);
  let serverBack: () => void = () => {};
  let back = Promise.resolve();
  const standin = await startInngestStandin({
    retryDelayMs,
    appFetch: async (request) => {
      if (new URL(request.url).searchParams.get("fnId")?.endsWith(heldUntilBack)) await back;
      return balanced.fetch(request);
    },
  });
  const env = {
    DATABASE_URL: url.toString(),
    PORT: String(port),
    WEB_CONCURRENCY: "1",
    ...mockModelEnv(mock.url),
    TITLE_TIMEOUT_SECONDS: "0",
    MEMORY_LEARNING: "off",
    INNGEST_DEV: standin.url,
    INNGEST_DEV_IS_LOCAL: "1",
    ...more,
  };
  let app: StartedApp = startApp(env);
  await app.ready();
  const cookie = await visit(app.base);
  const eventOf = (messageId: string) => standin.events.find((event) => (event.data.message as { id?: string } | undefined)?.id === messageId);

  return {
    standin,
    mock,
    db,
    chat: (body) => send(app.port, "POST", "/api/chat", { cookie, json: body }),
    turnOf: async (messageId) => (await db.query<{ status: string }>("SELECT status FROM turns WHERE message_id = $1", [messageId])).rows[0]?.status,
    stored: async (threadId) =>
      (
        await db.query<{ message_id: string; kind: string; content: string }>(
          "SELECT message_id, kind, content FROM messages WHERE thread_id = $1 AND part_index = 0 ORDER BY seq",
          [threadId],
        )
      ).rows,
    turnIdOf: (messageId) => String(eventOf(messageId)?.data.turnId),
    chatRunOf: (messageId) => standin.runs.find((run) => run.fnId === "threadline-chat-turn" && run.eventId === eventOf(messageId)?.id),
    async kill() {
      back = new Promise((resolve) => (serverBack = resolve));
      process.kill(-app.child.pid!, "SIGKILL");
      await app.exited;
    },
    output: () => app.output(),
    async restart() {
      app = startApp(env);
      await app.ready();
      serverBack();
    },
    async close() {
      serverBack();
      await standin.idle();
      await standin.close();
      await stopApps();
      await mock.close();
      await db.end();
    },
  };
}

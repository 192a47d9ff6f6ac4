import type pg from "pg";
import type { UIMessageChunk } from "ai";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { SLOW_REPLY, startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { mockModelEnv } from "./app-env";
import { TEST_DATABASE_URL } from "./db";
import { freePort, visit } from "./fresh-copy";
import { startInngestStandin, type InngestStandin } from "./inngest-standin/index.mjs";
import { ensureProductionBuild, startApp, stopApps, type Answer, type StartedApp } from "./production-app";

// App servers as `npm start` runs them (the production build, one worker each
// unless the file's settings say otherwise) on one database and one mock
// model, for what must hold between servers. On the Inngest runtime the
// stand-in reaches their serve endpoints through the file's `appFetch` (a
// balancer, say).

export interface AppServersOptions {
  count: number;
  /** The file's own settings, over one worker each, the mock model and no wait for titles. */
  env?: Record<string, string>;
  /** The database the servers share; the test database unless given. */
  database?: string;
  /** The variables that point a server at the mock model at `url`; mockModelEnv unless given. */
  modelEnv?: (url: string) => Record<string, string>;
  /** Runs turns on the Inngest stand-in, which sends its requests for the servers on `ports` through `appFetch(ports)`. */
  inngest?: { appFetch: (ports: number[]) => (request: Request) => Promise<Response>; retryDelayMs: number };
}

export interface AppServers {
  mock: MockModelServer;
  standin: InngestStandin | undefined;
  /** The servers as they started (one started again is restart's). */
  apps: StartedApp[];
  /** An identity the first server minted, as its cookie header. */
  cookie: string;
  /** The server on `app`'s port started again with the same settings (after a kill), once it answers. */
  restart(app: StartedApp): Promise<StartedApp>;
}

/**
 * App servers for a describe block: started in its beforeAll (the app built
 * first when it is not), stopped in its afterAll with the stand-in (its runs
 * let end first) and the mock model; what is answered reads them in its tests.
 * `options` as a function is read in the beforeAll, after the block's own
 * beforeAll hooks registered before it; the block's afterAll hooks registered
 * before it run after the servers stop (hooks after the tests run as a stack).
 */
export function appServers(options: AppServersOptions | (() => AppServersOptions)): () => AppServers {
  let started: (AppServers & { close(): Promise<void> }) | undefined;
  beforeAll(async () => {
    started = await startAppServers(typeof options === "function" ? options() : options);
  }, 900_000);
  afterAll(() => started?.close());
  // A failure between servers is told by their logs: the end of each is printed with it.
  afterEach((context) => {
    if (context.task.result?.state !== "fail" || !started) return;
    for (const app of started.apps) console.error(`--- the server on port ${app.port}, its log's end:\n${app.output().slice(-4000)}`);
  });
  return () => {
    if (!started) throw new Error("appServers: the servers start in the block's beforeAll");
    return started;
  };
}

async function startAppServers({ count, env = {}, database = TEST_DATABASE_URL, modelEnv = mockModelEnv, inngest }: AppServersOptions): Promise<AppServers & { close(): Promise<void> }> {
  await ensureProductionBuild();
  const mock = await startMockModelServer({ port: await freePort() });
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePort());
  const standin = inngest ? await startInngestStandin({ appFetch: inngest.appFetch(ports), retryDelayMs: inngest.retryDelayMs }) : undefined;
  const settings = {
    DATABASE_URL: database,
    WEB_CONCURRENCY: "1",
    ...modelEnv(mock.url),
    TITLE_TIMEOUT_SECONDS: "0",
    MEMORY_LEARNING: "off",
    ...(standin ? { INNGEST_DEV: standin.url, INNGEST_DEV_IS_LOCAL: "1" } : {}),
    ...env,
  };
  const apps = ports.map((port) => startApp({ ...settings, PORT: String(port) }));
  const close = async () => {
    await standin?.idle();
    await standin?.close();
    await stopApps();
    await mock.close();
  };
  let cookie: string;
  try {
    await Promise.all(apps.map((app) => app.ready()));
    cookie = await visit(apps[0].base);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    mock,
    standin,
    apps,
    cookie,
    async restart(app) {
      const again = startApp({ ...settings, PORT: String(app.port) });
      await again.ready();
      return again;
    },
    close,
  };
}

/** The thread's messages (every part), in order, as the servers stored them. */
export async function storedMessages(db: pg.Pool, threadId: string) {
  return (
    await db.query<{ message_id: string; kind: string; content: string; status: string }>(
      "SELECT message_id, kind, content, status FROM messages WHERE thread_id = $1 ORDER BY seq",
      [threadId],
    )
  ).rows;
}

/** How many of the mock model's requests answered `content` (it keeps every request's body). */
export function modelCallsFor(mock: MockModelServer, content: string): number {
  return mock.requests.filter((body) => JSON.stringify((body as { messages?: unknown }).messages ?? []).includes(content)).length;
}

/** A reply that asked for a tool call's approval, read to its end: its thread and the approval it waits for. */
export async function approvalAsked(answer: Answer): Promise<{ threadId: string; approvalId: string }> {
  expect(answer.status).toBe(200);
  await answer.stream.toEnd();
  const request = answer.stream.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
  expect(request, answer.stream.text).toBeDefined();
  return { threadId: String(answer.headers["x-thread-id"]), approvalId: request!.approvalId };
}

/**
 * `answer`, to `message` sent again once the turn that first took it died,
 * streams the slow reply whole for one model call more than `callsBefore`,
 * and the thread holds the message once and that reply, complete. The
 * thread's messages.
 */
export async function expectAnsweredOnceMore(
  answer: Answer,
  { db, mock, threadId, message, callsBefore }: { db: pg.Pool; mock: MockModelServer; threadId: string; message: { id: string; content: string }; callsBefore: number },
) {
  expect(answer.status).toBe(200);
  await answer.stream.toEnd();
  expect(answer.stream.reply).toBe(SLOW_REPLY);
  expect(modelCallsFor(mock, message.content)).toBe(callsBefore + 1);
  const rows = await storedMessages(db, threadId);
  expect(rows.filter((m) => m.kind === "user").map((m) => m.message_id)).toEqual([message.id]);
  expect(rows.filter((m) => m.kind === "assistant")).toEqual([expect.objectContaining({ content: SLOW_REPLY, status: "complete" })]);
  return rows;
}

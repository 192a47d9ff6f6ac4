import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createAgent, createNetwork, createState, createTool, openai, type HistoryConfig } from "@inngest/agent-kit";
import { InngestTestEngine } from "@inngest/test";
import { Inngest, type Context } from "inngest";
import type pg from "pg";
import ts from "typescript";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { toolResultsReply } from "../../scripts/mock-model-server.mjs";
import type { TimelineEntry } from "@/lib/protocol/threads";
import { chatTurn, params, request } from "../support/api";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import * as timeline from "@/app/api/threads/[id]/timeline/route";
import * as chat from "@/app/api/chat/route";
import { executeWithRetries } from "../support/inngest-engine";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { integrationApp } from "../support/integration";

// The package an AgentKit app installs (packages/agentkit-history), built as
// it is published and imported from its dist, driving the real
// @inngest/agent-kit against the mock model server and the real database; the
// threads it writes are then read back through the app's own route.
type Package = typeof import("../../packages/agentkit-history/src/index");
const PACKAGE_DIR = path.resolve(__dirname, "../../packages/agentkit-history");
const DIST = path.join(PACKAGE_DIR, "dist");

let pkg: Package;
let owner: string;
let cookie: string;

beforeAll(async () => {
  execFileSync(process.execPath, [path.join(PACKAGE_DIR, "build.mjs")], { stdio: "inherit" });
  pkg = (await import(pathToFileURL(path.join(DIST, "index.js")).href)) as Package;
});
const t = integrationApp();
beforeEach(() => {
  ({ id: owner, cookie } = t.me);
});

const add = createTool({
  name: "add",
  description: "Adds two numbers.",
  parameters: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => a + b,
});
const calculator = createAgent({ name: "Calculator", system: "You add numbers with the add tool.", tools: [add] });

/** A network with one agent that answers, calling tools until the model gives text. */
function network(history: HistoryConfig<Record<string, unknown>>) {
  return createNetwork({
    name: "Sums",
    agents: [calculator],
    defaultModel: openai({ model: "mock-model", apiKey: "test-key", baseUrl: t.mock.url }),
    history,
    router: ({ callCount, lastResult }) => (callCount === 0 || (lastResult?.toolCalls.length ?? 0) > 0 ? calculator : undefined),
  });
}
const inThread = (threadId: string) => ({ state: createState<Record<string, unknown>>({}, { threadId }) });
const message = (content: string, id = randomUUID()) => ({ id, role: "user" as const, content });

type OpenAIMessage = { role: string; content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };
const requestMessages = (i: number) => (t.mock.requests[i] as { messages: OpenAIMessage[] }).messages;

async function rows(threadId: string) {
  const { rows } = await t.pool.query<{ message_id: string; kind: string; agent_name: string | null; content: string }>(
    "SELECT message_id, kind, agent_name, content FROM messages WHERE thread_id = $1 ORDER BY seq",
    [threadId],
  );
  return rows;
}

async function timelineOf(threadId: string): Promise<TimelineEntry[]> {
  const response = await timeline.GET(request(`/api/threads/${threadId}/timeline`, { cookie }), params(threadId));
  expect(response.status).toBe(200);
  return (await response.json()).parts;
}

const ADD = 'Add one and two [[call:add:{"a":1,"b":2}]]';

describe("the built package", () => {
  it("holds no Next.js, no server-only guard and no app alias, and declares only its own and its peers' types", async () => {
    const js = await readFile(path.join(DIST, "index.js"), "utf8");
    expect(js).not.toMatch(/server-only/);
    expect(js).not.toMatch(/from "next|require\("next/);
    expect(js).not.toMatch(/from "@\//);
    const imports = new Set([...js.matchAll(/ from "([^"]+)";$/gm)].map((m) => m[1]));
    expect([...imports].filter((name) => !name.startsWith("node:") && name !== "fs").sort()).toEqual(["@inngest/agent-kit", "inngest", "pg", "zod"]);
    const declared = await readFile(path.join(DIST, "index.d.ts"), "utf8");
    expect([...declared.matchAll(/from "([^"]+)"/g)].map((m) => m[1]).sort()).toEqual(["./types.js", "./types.js", "@inngest/agent-kit", "pg"]);
  });

  it("declares agentKitHistory() as AgentKit's HistoryConfig: a program using the declarations compiles, a wrong use does not", () => {
    const check = (body: string) => {
      const file = path.join(PACKAGE_DIR, "dist", "__check__.ts");
      const source = `import { agentKitHistory, type ThreadlineError } from "./index.js";
import { createNetwork, type HistoryConfig } from "@inngest/agent-kit";
import pg from "pg";
const pool = new pg.Pool();
${body}`;
      const host = ts.createCompilerHost({});
      const read = host.readFile;
      host.readFile = (name) => (path.resolve(name) === file ? source : read(name));
      host.fileExists = ((exists) => (name: string) => path.resolve(name) === file || exists(name))(host.fileExists);
      // AgentKit's own declarations do not pass a strict check against inngest v4 (AsyncContext["ctx"]): libraries are not checked.
      const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 }, host);
      return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    };
    expect(
      check(`const history: HistoryConfig<{ userId: string }> = agentKitHistory<{ userId: string }>(pool, { owner: ({ state }) => state.data.userId });
createNetwork({ name: "n", agents: [], history: agentKitHistory(pool, { owner: "user-1" }) });
const refused = (e: ThreadlineError) => e.code;
void history; void refused;`),
    ).toEqual([]);
    expect(check(`const history: HistoryConfig<{}> = agentKitHistory(pool, { owner: 42 }); void history;`).length).toBeGreaterThan(0);
  }, 60_000);

  it("migrate() builds Threadline's schema in an empty database from the migrations and functions copied beside it", async () => {
    const embedded = await startEmbeddedPostgres();
    const { default: pg } = await import("pg");
    const fresh = new pg.Pool({ connectionString: embedded.url, max: 1 });
    try {
      const copied = (await readdir(path.join(DIST, "migrations"))).map((name) => name.replace(/\.sql$/, "")).sort();
      expect(copied).toEqual((await readdir(path.resolve(PACKAGE_DIR, "../history/db/migrations"))).map((name) => name.replace(/\.sql$/, "")).sort());
      const functions = (await readdir(path.join(DIST, "functions"))).map((name) => `db/functions/${name.replace(/\.sql$/, "")}`).sort();
      expect(functions).toEqual((await readdir(path.resolve(PACKAGE_DIR, "../history/db/functions"))).map((name) => `db/functions/${name.replace(/\.sql$/, "")}`).sort());
      expect(await pkg.migrate(embedded.url)).toEqual([...copied, ...functions]);
      expect(await pkg.migrate(fresh)).toEqual([]);
      const history = pkg.agentKitHistory(fresh, { owner });
      const state = createState<Record<string, unknown>>({});
      const { threadId } = await history.createThread({ state, input: "hi" });
      expect((await fresh.query("SELECT owner FROM threads WHERE id = $1", [threadId])).rows).toEqual([{ owner }]);
    } finally {
      await fresh.end();
      await embedded.stop();
    }
  }, 60_000);

  it("migrate() on the suite's migrated database finds nothing left to do", async () => {
    expect(await pkg.migrate(t.pool)).toEqual([]);
  });
});

describe("a network with Threadline's history", () => {
  it("stores turn 1 as parts in order, and gives turn 2's model the new message once and each call followed by its result", async () => {
    const history = pkg.agentKitHistory(t.pool, { owner });
    const first = await network(history).run(message(ADD));
    const threadId = first.state.threadId!;
    expect(t.mock.requests).toHaveLength(2);
    const call = first.state.results[0].output[0];
    expect(call.type).toBe("tool_call");
    const callId = call.type === "tool_call" ? call.tools[0].id : "";
    const answer = toolResultsReply([{ name: "add", content: '{"data":3}' }]);
    expect((await rows(threadId)).map((r) => [r.kind, r.agent_name, r.content])).toEqual([
      ["user", null, ADD],
      ["tool_call", "Calculator", JSON.stringify({ toolCallId: callId, toolName: "add", input: { a: 1, b: 2 } })],
      ["tool_result", "Calculator", JSON.stringify({ toolCallId: callId, toolName: "add", output: 3 })],
      ["assistant", "Calculator", answer],
    ]);

    t.mock.requests.length = 0;
    const second = await network(history).run(message("And what was the answer?"), inThread(threadId));
    expect(second.state.threadId).toBe(threadId);
    expect(t.mock.requests).toHaveLength(1);
    const sent = requestMessages(0);
    expect(sent.filter((m) => m.content === "And what was the answer?")).toHaveLength(1);
    expect(sent.filter((m) => m.content === ADD)).toHaveLength(1);
    const calls = sent.flatMap((m, i) => (m.tool_calls ?? []).map((c) => ({ id: c.id, next: sent[i + 1] })));
    expect(calls).toEqual([{ id: callId, next: { role: "tool", tool_call_id: callId, content: '{"data":3}' } }]);
    expect(sent.some((m) => m.role === "assistant" && m.content === answer)).toBe(true);
    expect((await rows(threadId)).map((r) => r.kind)).toEqual(["user", "tool_call", "tool_result", "assistant", "user", "assistant"]);
  });

  it("refuses another owner's thread as not found, and stores nothing for it", async () => {
    const first = await network(pkg.agentKitHistory(t.pool, { owner })).run(message("mine"));
    const threadId = first.state.threadId!;
    t.mock.requests.length = 0;
    const intruder = network(pkg.agentKitHistory(t.pool, { owner: "intruder" }));
    const refusal = await intruder.run(message("let me in"), inThread(threadId)).catch((e: unknown) => e);
    expect(pkg.isThreadlineError(refusal) && refusal.code).toBe("not_found:thread");
    expect(t.mock.requests).toHaveLength(0);
    expect((await rows(threadId)).map((r) => r.content)).not.toContain("let me in");
  });

  it("makes threads the app lists as from AgentKit, with the network's own id and metadata; a bad one is refused before anything is stored", async () => {
    const history = pkg.agentKitHistory(t.pool, { owner, sourceId: ({ state }) => `conversation-${String(state.data.customer)}`, sourceMetadata: { network: "Sums" } });
    const { state } = await network(history).run(message("hi"), { state: createState<Record<string, unknown>>({ customer: 7 }) });
    const { rows: made } = await t.pool.query("SELECT source, source_id, source_metadata FROM threads WHERE id = $1", [state.threadId]);
    expect(made).toEqual([{ source: "agentkit", source_id: "conversation-7", source_metadata: { network: "Sums" } }]);

    t.mock.requests.length = 0;
    const refusal = await network(pkg.agentKitHistory(t.pool, { owner, sourceId: "x".repeat(201) })).run(message("too long an id")).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TypeError);
    expect(String(refusal)).toContain("sourceId");
    expect(t.mock.requests).toHaveLength(0);
  });

  it("takes a thread id that is not a UUID for a thread not found, not a database error", async () => {
    const refusal = await network(pkg.agentKitHistory(t.pool, { owner })).run(message("hello"), inThread("thread-42")).catch((e: unknown) => e);
    expect(pkg.isThreadlineError(refusal) && refusal.code).toBe("not_found:thread");
    expect(t.mock.requests).toHaveLength(0);
  });

  it("keeps the user's message when the model fails, unanswered", async () => {
    const threadId = randomUUID();
    const failed = await network(pkg.agentKitHistory(t.pool, { owner })).run(message("[[error]] please"), inThread(threadId)).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(pkg.isThreadlineError(failed)).toBe(false);
    expect((await rows(threadId)).map((r) => [r.kind, r.content])).toEqual([["user", "[[error]] please"]]);
  });

  it("refuses a message id the thread already holds: stored once, answered once", async () => {
    const history = pkg.agentKitHistory(t.pool, { owner });
    const sent = message("only once");
    const first = await network(history).run(sent);
    const threadId = first.state.threadId!;
    const refusal = await network(history).run(sent, inThread(threadId)).catch((e: unknown) => e);
    expect(pkg.isThreadlineError(refusal) && refusal.code).toBe("conflict:duplicate_message");
    expect(t.mock.requests).toHaveLength(1);
    expect((await rows(threadId)).map((r) => r.kind)).toEqual(["user", "assistant"]);
  });

  it("writes a thread that the app's timeline serves with the same parts", async () => {
    const run = await network(pkg.agentKitHistory(t.pool, { owner })).run(message(ADD));
    const threadId = run.state.threadId!;
    const [called, answered] = run.state.results;
    const call = called.output[0];
    const tool = call.type === "tool_call" ? call.tools[0] : undefined;
    const text = answered.output[0];
    const parts = (await timelineOf(threadId)).map(({ role, type, ...rest }) => {
      const { id, messageId, createdAt, ...part } = rest as Record<string, unknown>;
      return { role, type, ...part };
    });
    expect(parts).toEqual([
      { role: "user", type: "text", text: ADD },
      // The timeline names a call's id as callId too, as it does for every call of the tree.
      { role: "assistant", type: "tool-call", callId: tool?.id, toolCallId: tool?.id, toolName: "add", input: { a: 1, b: 2 }, agentName: "Calculator" },
      { role: "assistant", type: "tool-result", callId: tool?.id, toolCallId: tool?.id, toolName: "add", output: 3, agentName: "Calculator" },
      { role: "assistant", type: "text", text: text.type === "text" ? text.content : undefined, agentName: "Calculator" },
    ]);
  });
});

/**
 * AgentKit asks for its model calls with step.ai.infer, which the Inngest
 * server performs (the test engine cannot): here it is a step that makes the
 * same request to the mock model server, memoized like any other step.
 */
function inferAsStep(step: Context.Any["step"]): Context.Any["step"]["ai"]["infer"] {
  const infer = (id: Parameters<typeof step.run>[0], { model, body }: { model: { url?: string; authKey?: string }; body: unknown }) =>
    step.run(id, async () => {
      const response = await fetch(model.url!, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${model.authKey}` },
        body: JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    });
  return infer as unknown as Context.Any["step"]["ai"]["infer"];
}

describe("one thread, two faces", () => {
  it("goes on in Threadline's chat, whose model reads the AgentKit turn, and back in AgentKit, whose model reads Threadline's", async () => {
    const history = pkg.agentKitHistory(t.pool, { owner });
    const run = await network(history).run(message(ADD));
    const threadId = run.state.threadId!;
    const call = run.state.results[0].output[0];
    const callId = call.type === "tool_call" ? call.tools[0].id : "";

    t.mock.requests.length = 0;
    const app = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "Thanks from Threadline" } }, cookie);
    expect(app.response.status).toBe(200);
    const appSent = requestMessages(0);
    expect(appSent.filter((m) => m.content === ADD)).toHaveLength(1);
    const i = appSent.findIndex((m) => m.tool_calls?.[0]?.id === callId);
    expect(appSent[i + 1]).toMatchObject({ role: "tool", tool_call_id: callId });

    t.mock.requests.length = 0;
    await network(history).run(message("And back in AgentKit"), inThread(threadId));
    const sent = requestMessages(0);
    expect(sent.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["And back in AgentKit", ADD, "Thanks from Threadline"]);
    expect(sent.some((m) => m.role === "assistant" && m.content === app.text)).toBe(true);
  });

  it("reads a thread Threadline compacted as its summary, a system message, and only the messages after it", async () => {
    const history = pkg.agentKitHistory(t.pool, { owner });
    const threadId = (await network(history).run(message(ADD))).state.threadId!;
    const summary = { id: randomUUID(), text: "Summary: said add one and two", throughSeq: 4, summarizedMessages: 2 };
    expect(await new PostgresHistoryAdapter(t.pool).summaries.append({ owner, threadId, summary, after: null })).not.toBeNull();

    t.mock.requests.length = 0;
    await network(history).run(message("What next?"), inThread(threadId));
    const sent = requestMessages(0);
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "system"]);
    expect(sent[2].content).toContain("Summary: said add one and two");
    expect(sent.some((m) => m.content === ADD || m.tool_calls)).toBe(false);
  });
});

describe("under Inngest", () => {
  it("runs each hook's side effect once across every replay of the function", async () => {
    const counted = new Map<string, number>();
    const spy = new Proxy(t.pool, {
      get(target, key, receiver) {
        if (key !== "query") return Reflect.get(target, key, receiver);
        return (text: string | { text: string }, ...rest: unknown[]) => {
          const sql = typeof text === "string" ? text : text.text;
          for (const fn of ["threadline_upsert_thread", "threadline_append_user_message", "threadline_append_reply", "WITH start AS MATERIALIZED"]) {
            if (sql.includes(fn)) counted.set(fn, (counted.get(fn) ?? 0) + 1);
          }
          return (target.query as (...args: unknown[]) => unknown).call(target, text, ...rest);
        };
      },
    }) as pg.Pool;
    const threadId = randomUUID();
    const history = pkg.agentKitHistory(spy, { owner });
    let executions = 0;
    const inngest = new Inngest({ id: "agentkit-history-test" });
    const fn = inngest.createFunction({ id: "sums", triggers: [{ event: "sums/asked" }] }, async ({ event }) => {
      executions++;
      const run = await network(history).run(event.data.message, inThread(event.data.threadId));
      return { results: run.state.results.length };
    });
    const engine = new InngestTestEngine({
      function: fn,
      events: [{ name: "sums/asked", data: { threadId, message: message(ADD) } }],
      transformCtx: (ctx) => ({ ...ctx, step: { ...ctx.step, ai: { ...ctx.step.ai, infer: inferAsStep(ctx.step) } } }),
    });
    const { result, error } = await engine.execute();
    expect(error).toBeUndefined();
    expect(result).toEqual({ results: 2 });
    expect(executions).toBeGreaterThan(4);
    expect(Object.fromEntries(counted)).toEqual({
      threadline_upsert_thread: 1,
      threadline_append_user_message: 1,
      "WITH start AS MATERIALIZED": 1,
      threadline_append_reply: 1,
    });
    expect((await rows(threadId)).map((r) => r.kind)).toEqual(["user", "tool_call", "tool_result", "assistant"]);
  });

  it("ends a run refused (a resent message) at once, without retries and without asking the model", async () => {
    const history = pkg.agentKitHistory(t.pool, { owner });
    const sent = message("once, durably");
    const threadId = (await network(history).run(sent)).state.threadId!;
    t.mock.requests.length = 0;
    const inngest = new Inngest({ id: "agentkit-history-test" });
    const fn = inngest.createFunction({ id: "sums", triggers: [{ event: "sums/asked" }] }, async ({ event }) => {
      await network(history).run(event.data.message, inThread(event.data.threadId));
    });
    const at = (attempt: number) =>
      new InngestTestEngine({
        function: fn,
        events: [{ name: "sums/asked", data: { threadId, message: sent } }],
        transformCtx: (ctx) => ({ ...ctx, attempt, step: { ...ctx.step, ai: { ...ctx.step.ai, infer: inferAsStep(ctx.step) } } }),
      });
    const out = await executeWithRetries(at);
    expect(out.attempts).toBe(1);
    expect(out.error).toMatchObject({ name: "NonRetriableError" });
    expect(JSON.stringify(out.error)).toContain("conflict:duplicate_message");
    expect(t.mock.requests).toHaveLength(0);
    expect((await rows(threadId)).map((r) => r.kind)).toEqual(["user", "assistant"]);
  });
});

import { createHash, randomUUID } from "node:crypto";
import { format } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { UIMessageChunk } from "ai";
import { parseMcpServers } from "@/lib/mcp/mcp-config";
import { McpServers } from "@/lib/mcp/mcp-servers";
import type { AgentTool, ToolContext } from "@/lib/agent/network/tools/types";
import type { Part } from "@threadline/history/parts";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import NewChatPage from "@/app/(chat)/page";
import { chatTurn, request, visitor } from "../support/api";
import { startHostileMcpServer, type HostileMcpServer, type HostileMode } from "../support/hostile-mcp-server";
import { integrationApp } from "../support/integration";

// The MCP wing within its bounds, against servers that misbehave
// (tests/support/hostile-mcp-server.ts): one that hangs in its handshake or in
// the SSE fallback costs a turn at most the connect timeout, once, and is then
// marked down and left out without a wait; a result of 50 MB is not read
// whole; a secret in a server's URL or headers reaches no page, log line or
// error; the tools are listed once, not once per turn or per view of the
// debug panel; an approved call whose server is down is tried again rather
// than answered "There is no tool named …".

const MB = 1024 * 1024;
const context = (idempotencyKey?: string): ToolContext => ({ owner: randomUUID(), threadId: randomUUID(), ...(idempotencyKey ? { idempotencyKey } : {}) });
const named = (tools: AgentTool[], name: string) => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(", ") || "none"}`);
  return tool;
};

describe("MCP servers within their bounds", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    // Clients before their servers.
    for (const started of open.splice(0).reverse()) await started.close();
  });
  const serve = async (mode: HostileMode = "ok") => {
    const server = await startHostileMcpServer({ mode });
    open.push(server);
    return server;
  };
  const connect = (servers: Record<string, unknown>, options: { connectTimeoutMs?: number; maxResultChars?: number } = {}) => {
    const parsed = parseMcpServers(JSON.stringify({ mcpServers: servers }));
    if ("error" in parsed) throw new Error(parsed.error);
    const logs: string[] = [];
    const mcp = new McpServers(parsed.servers, {
      callTimeoutMs: 15_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 300,
      maxResultChars: options.maxResultChars ?? 1_000,
      log: (line) => logs.push(line),
    });
    open.push(mcp);
    return { mcp, logs };
  };

  it.each([
    ["in its handshake", "hang-connect", {}],
    ["in the SSE fallback", "hang-sse", {}],
    ["in its SSE stream (type: sse)", "hang-sse", { type: "sse" }],
  ] as const)("gives up on a server that hangs %s at the connect timeout, marks it down, and then waits for it no more", async (_where, mode, extra) => {
    const hung = await serve(mode);
    const fine = await serve();
    // Long enough for a sound server on a busy machine; the hung one costs it twice (Streamable HTTP, then SSE).
    const { mcp, logs } = connect({ hung: { url: hung.url, ...extra }, fine: { url: fine.url } }, { connectTimeoutMs: 1_500 });

    // The first list waits for the hung server at most the connect timeout, and has the other's tools.
    const first = await mcp.tools();
    expect(first.map((t) => t.name)).toEqual(["fine__echo", "fine__huge"]);
    await expect.poll(() => mcp.status()[0].note ?? "", { timeout: 10_000 }).toMatch(/^unavailable: .*timed out/);
    expect(mcp.status()[0]).toMatchObject({ name: "hung", connected: false, tools: [] });
    expect(logs.some((line) => line.startsWith("[mcp] hung is unavailable: "))).toBe(true);

    // Down, backed off: the next lists ask it nothing.
    const before = { ...hung.counts };
    for (let i = 0; i < 3; i++) expect((await mcp.tools()).map((t) => t.name)).toEqual(["fine__echo", "fine__huge"]);
    expect(hung.counts).toEqual(before);
  });

  it.each([
    ["JSON", false],
    ["an SSE event", true],
  ] as const)("stops reading a 50 MB result sent as %s not far past MCP_RESULT_MAX_CHARS: the server sees the client hang up", async (_as, sse) => {
    const server = await serve();
    server.sseResults = sse;
    const { mcp } = connect({ big: { url: server.url, autoApprove: ["huge", "echo"] } });
    const tools = await mcp.tools();

    await expect(named(tools, "big__huge").execute({ mb: 50 }, context())).rejects.toThrow(
      /^The MCP server "big" sent a result too large to read: its answer passed [\d,]+ bytes, and reading stopped there/,
    );
    await expect.poll(() => server.huge[0]?.cutShort, { timeout: 10_000 }).toBe(true);
    // What it got out before the client hung up: the limit, and what the sockets' buffers took.
    expect(server.huge[0].sent).toBeLessThan(16 * MB);
    expect(server.huge[0].size).toBeGreaterThan(50 * MB);
    // The server stays in use: a result within the limit reads as ever.
    expect(await named(tools, "big__echo").execute({ text: "still here" }, context())).toBe("echo: still here");
  });

  it("bounds a server's tools: at most 64 offered, a schema too large left out, each with a note", async () => {
    const server = await serve();
    server.tools = [
      ...Array.from({ length: 100 }, (_, i) => ({ name: `t${i}`, description: "d".repeat(5_000), inputSchema: { type: "object" } })),
      { name: "bloated", description: "too big", inputSchema: { type: "object", description: "y".repeat(20_000) } },
    ];
    server.tools.unshift(server.tools.pop()!);
    const { mcp } = connect({ many: { url: server.url } });
    const tools = await mcp.tools();
    expect(tools).toHaveLength(64);
    expect(tools.every((t) => t.description.length < 1_100)).toBe(true);
    const [status] = mcp.status();
    expect(status.tools).not.toContain("many__bloated");
    expect(status.note).toMatch(/left out \(.*input schema over 8,000 characters\): bloated/);
    expect(status.note).toContain("only its first 64 tools are offered");
  });

  it("keeps the tools listed: lists again when the server says they changed (notifications/tools/list_changed), not per turn", async () => {
    const server = await serve();
    const { mcp } = connect({ live: { url: server.url } });
    // The debug panel's first view connects a server never tried, once; views and turns after it list nothing.
    expect((await mcp.statusForView())[0]).toMatchObject({ connected: true, tools: ["live__echo", "live__huge"] });
    for (let i = 0; i < 5; i++) await mcp.statusForView();
    for (let i = 0; i < 5; i++) await mcp.tools();
    expect(server.counts.lists).toBe(1);
    await expect.poll(() => server.counts.streams).toBe(1);

    server.tools.push({ name: "fresh", description: "New", inputSchema: { type: "object" } });
    server.announceToolsChanged();
    await expect.poll(() => mcp.status()[0].tools, { timeout: 10_000 }).toContain("live__fresh");
    expect((await mcp.tools()).map((t) => t.name)).toContain("live__fresh");
    expect(server.counts.lists).toBe(2);
  });
});

describe.each(["inline", "inngest"] as const)("MCP servers in turns (%s runtime)", (runtime) => {
  let notes: HostileMcpServer;
  let hung: HostileMcpServer;
  let leaky: HostileMcpServer;
  let me: { id: string; cookie: string };
  let settings: Record<string, string>;
  /** Every line the process wrote to its console while the describe ran. */
  const consoleLines: string[] = [];
  const secrets = ["pa55word-xyz", "qsecret-123", "hdr-secret-456", "xkey-789", Buffer.from("alice:pa55word-xyz").toString("base64")];

  beforeAll(async () => {
    for (const method of ["log", "info", "warn", "error"] as const) {
      const original = console[method];
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        consoleLines.push(format(...args));
        original(...args);
      });
    }
    notes = await startHostileMcpServer();
    hung = await startHostileMcpServer({ mode: "hang-connect" });
    leaky = await startHostileMcpServer({ mode: "echo-errors" });
    const secretUrl = new URL(leaky.url);
    secretUrl.username = "alice";
    secretUrl.password = "pa55word-xyz";
    secretUrl.search = "?key=qsecret-123";
    const config = {
      mcpServers: {
        notes: { url: notes.url, autoApprove: ["huge"] },
        hung: { url: hung.url },
        leaky: { url: secretUrl.toString(), headers: { "X-Api-Key": "xkey-789" } },
        leaky2: { url: secretUrl.toString().replace("alice:pa55word-xyz@", ""), headers: { Authorization: "Bearer hdr-secret-456" } },
      },
    };
    settings = { MCP_SERVERS: JSON.stringify(config), MCP_CONNECT_TIMEOUT_SECONDS: "1" };
    me = await visitor();
  });
  afterAll(async () => {
    for (const server of [notes, hung, leaky]) await server.close();
    vi.restoreAllMocks();
  });
  // Inline, as the server does when it starts: a decided reply goes on.
  const t = integrationApp({ runtime, settings: () => settings, dueWork: true });

  const send = (content: string) => chatTurn(chat, { message: { id: randomUUID(), content } }, me.cookie);
  const lastReply = async (threadId: string) => (await t.app.history().get({ owner: me.id, threadId })).at(-1)!;
  const offered = () => {
    const requests = t.mock.requests as { tools?: { function: { name: string } }[] }[];
    const researcher = requests.findLast((r) => r.tools?.some((t) => t.function.name !== "hand_over" && t.function.name !== "call_agent"));
    return (researcher?.tools ?? []).map((t) => t.function.name);
  };
  /** The debug panel's servers, as the page hands them to it. */
  const debugView = async () => {
    const element = (await NewChatPage({ searchParams: Promise.resolve({ debug: "true" }) })) as { props: { mcpServers?: unknown } };
    return element.props.mcpServers as { name: string; connected: boolean; tools: string[]; note?: string }[];
  };
  const statusOf = (name: string) => t.app.mcp().status().find((s) => s.name === name)!;

  it("answers while one server hangs in its handshake and two fail: the hung one is marked down, and the next turns wait for none", async () => {
    const first = await send('[[call:notes__huge:{"mb":0}]]');
    expect(first.response.status).toBe(200);
    expect((await lastReply(first.threadId!)).status).toBe("complete");
    expect(offered().filter((name) => name.includes("__"))).toEqual(["notes__echo", "notes__huge"]);
    await expect.poll(() => statusOf("hung").note ?? "", { timeout: 10_000 }).toMatch(/^unavailable: .*timed out/);
    expect(statusOf("hung")).toMatchObject({ connected: false, tools: [] });
    expect(statusOf("leaky")).toMatchObject({ connected: false });

    const initializes = hung.counts.initialize;
    const next = await send("hello again");
    expect(next.response.status).toBe(200);
    expect((await lastReply(next.threadId!)).status).toBe("complete");
    // The turn asked the hung server nothing (a retry in the background may, after its backoff).
    expect(hung.counts.initialize).toBeLessThanOrEqual(initializes + 1);
  });

  it("lists each server's tools once across ten turns and ten views of the debug panel", async () => {
    const lists = notes.counts.lists;
    expect(lists).toBe(1);
    for (let i = 0; i < 10; i++) {
      expect((await send(`turn ${i}`)).response.status).toBe(200);
      const view = await debugView();
      expect(view.find((s) => s.name === "notes")).toMatchObject({ connected: true, tools: ["notes__echo", "notes__huge"] });
    }
    expect(notes.counts.lists).toBe(lists);
    expect(notes.counts.initialize).toBe(1);
    if (runtime === "inngest") {
      // Listed in a step of each run (Inngest knows a step by its id's SHA-1): a replay of the turn offers what the first attempt did.
      const listStep = createHash("sha1").update("mcp-tools").digest("hex");
      const runs = t.standin.runs.slice(-10) as { steps: string[] }[];
      expect(runs.every((run) => run.steps.includes(listStep))).toBe(true);
    }
  });

  it("keeps a server's URL and header secrets out of the page, the log and the errors", async () => {
    // The server did quote them: its 500s carry the request's URL and Authorization header.
    await expect.poll(() => statusOf("leaky2").note ?? "", { timeout: 10_000 }).toMatch(/^unavailable: /);
    const view = JSON.stringify(await debugView());
    expect(view).toContain("leaky");
    let thrown = "";
    await t.app
      .network()
      .dynamicTools!.unlisted!("leaky__echo")
      .catch((error: Error) => (thrown = `${error.message}\n${error.stack}`));
    expect(thrown).toMatch(/The MCP server "leaky" is unavailable/);
    const seen = [view, thrown, JSON.stringify(t.app.mcp().status()), ...consoleLines].join("\n");
    expect(seen).toContain("[mcp] leaky is unavailable");
    for (const secret of secrets) expect(seen).not.toContain(secret);
    expect(seen).not.toContain("alice@");
  });

  it("fails an approved call's step while its server is down, rather than storing 'There is no tool named …'", async () => {
    const turn = await send('[[call:notes__echo:{"text":"approved while down"}]]');
    const asked = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
    expect(asked).toBeDefined();
    const threadId = turn.threadId!;
    const calls = notes.counts.calls;
    await notes.stop();
    try {
      const decided = await decisionRoute.POST(
        request(`/api/threads/${threadId}/approvals/${asked!.approvalId}`, { method: "POST", cookie: me.cookie, json: { approved: true } }),
        { params: Promise.resolve({ id: threadId, approvalId: asked!.approvalId }) },
      );
      expect(decided.status).toBe(202);
      if (runtime === "inngest") {
        // The step failed, was retried, and the run failed with it: nothing answered the call.
        await expect
          .poll(() => (t.standin.runs as { status: string; error?: { message: string } }[]).find((run) => run.status === "failed" && /The MCP server "notes" is unavailable/.test(run.error?.message ?? "")), {
            timeout: 15_000,
          })
          .toBeDefined();
      } else {
        // Each look of the due work tries again, and finds it still down.
        await expect.poll(() => consoleLines.filter((line) => /The MCP server "notes" is unavailable/.test(line)).length, { timeout: 15_000 }).toBeGreaterThan(1);
      }
      const reply = await lastReply(threadId);
      const result = reply.parts.find((p): p is Extract<Part, { type: "tool-result" }> => p.type === "tool-result" && p.toolName === "notes__echo");
      expect(result).toBeUndefined();
      expect(JSON.stringify(reply.parts)).not.toContain("There is no tool named");
    } finally {
      await notes.start();
    }
    if (runtime !== "inngest") {
      // Back after its backoff, the call is run (once) and the reply goes on.
      await expect.poll(async () => (await lastReply(threadId)).status, { timeout: 20_000 }).toBe("complete");
      const result = (await lastReply(threadId)).parts.find((p): p is Extract<Part, { type: "tool-result" }> => p.type === "tool-result" && p.toolName === "notes__echo");
      expect(result).toMatchObject({ output: "echo: approved while down" });
      expect(notes.counts.calls).toBe(calls + 1);
    }
  });
});

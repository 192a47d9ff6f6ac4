import { randomUUID } from "node:crypto";
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { parseMcpServers } from "@/lib/mcp/mcp-config";
import { McpServers } from "@/lib/mcp/mcp-servers";
import { runTool } from "@/lib/agent/network/tools/run-tool";
import type { AgentTool, ToolContext } from "@/lib/agent/network/tools/types";
import { startSseMcpServer, type SseMcpServer } from "../support/sse-mcp-server";

// An operator's MCP server that speaks only the older SSE transport, a real
// one from the protocol's SDK: without a type the client tries Streamable
// HTTP, is refused as such a server refuses it, and falls back to SSE; with
// `type: "sse"` it goes there directly. A server that goes down is left out
// of the turns until it answers again, as over Streamable HTTP.
describe("MCP servers over SSE", () => {
  const open: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    // Clients before their servers: a client whose stream drops keeps trying to open it again.
    for (const started of open.splice(0).reverse()) await started.stop();
  });

  const serve = async (options?: Parameters<typeof startSseMcpServer>[0]): Promise<SseMcpServer> => {
    const sse = await startSseMcpServer(options);
    open.push({ stop: () => sse.close() });
    return sse;
  };
  /** McpServers as the app builds it: from MCP_SERVERS' JSON, as parsed at start. */
  const connect = (servers: Record<string, unknown>) => {
    const parsed = parseMcpServers(JSON.stringify({ mcpServers: servers }));
    if ("error" in parsed) throw new Error(parsed.error);
    const logs: string[] = [];
    const mcp = new McpServers(parsed.servers, { callTimeoutMs: 5_000, connectTimeoutMs: 5_000, maxResultChars: 1_000, log: (line) => logs.push(line) });
    open.push({ stop: () => mcp.close() });
    return { mcp, logs };
  };
  /** What a turn gives a tool: its owner and thread, and, once the user approved, the approval's id. */
  const context = (idempotencyKey?: string): ToolContext => ({ owner: randomUUID(), threadId: randomUUID(), ...(idempotencyKey ? { idempotencyKey } : {}) });
  const named = (tools: AgentTool[], name: string) => {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(", ") || "none"}`);
    return tool;
  };

  it.each([405, 404] as const)("falls back to SSE when a POST to the URL gets %i: the tools are listed and a call reaches the server once", async (status) => {
    const sse = await serve({ streamableStatus: status });
    const { mcp } = connect({ legacy: { url: sse.url, headers: { Authorization: "Bearer s3cret" } } });

    const tools = await mcp.tools();
    expect(tools.map((t) => t.name)).toEqual(["legacy__echo"]);
    // Streamable HTTP was tried, once, and the tools came over the stream the fallback opened.
    expect(sse.counts).toEqual({ streamablePosts: 1, streams: 1 });
    expect(mcp.status()[0]).toMatchObject({ name: "legacy", connected: true, tools: ["legacy__echo"] });
    // What any visitor's debug panel is given: never the URL, which may carry a key.
    expect(JSON.stringify(mcp.status())).not.toContain(sse.url);
    // The next turn's ask rides the same session: no new attempt, no second stream.
    expect(await mcp.tools()).toBe(tools);
    expect(sse.counts).toEqual({ streamablePosts: 1, streams: 1 });

    const output = await named(tools, "legacy__echo").execute({ text: "hello" }, context("approval-1"));
    expect(output).toBe("echo: hello");
    expect(sse.calls).toEqual([{ text: "hello", authorization: "Bearer s3cret", idempotencyKey: "approval-1" }]);
  });

  it('goes straight to SSE for `type: "sse"`: no Streamable HTTP attempt', async () => {
    const sse = await serve();
    const { mcp } = connect({ legacy: { url: sse.url, type: "sse", autoApprove: ["echo"] } });

    const tools = await mcp.tools();
    expect(tools.map((t) => t.name)).toEqual(["legacy__echo"]);
    expect(named(tools, "legacy__echo").needsApproval).toBe(false);
    expect(sse.counts).toEqual({ streamablePosts: 0, streams: 1 });

    expect(await named(tools, "legacy__echo").execute({ text: "direct" }, context())).toBe("echo: direct");
    expect(sse.calls).toEqual([{ text: "direct" }]);
    expect(sse.counts.streamablePosts).toBe(0);
  });

  it("leaves a stopped SSE server out of the next turn and says so; once it listens again its tools are back", async () => {
    const sse = await serve();
    const { mcp, logs } = connect({ legacy: { url: sse.url } });
    expect((await mcp.tools()).map((t) => t.name)).toEqual(["legacy__echo"]);

    // Its stream drops: the client notices, fails to connect again and marks it down, with no turn asking.
    await sse.stop();
    await expect.poll(() => mcp.status()[0].connected, { timeout: 10_000 }).toBe(false);
    expect(await mcp.tools()).toEqual([]);
    expect(mcp.status()[0]).toMatchObject({ name: "legacy", connected: false, tools: [], note: expect.stringMatching(/^unavailable: /) });
    expect(logs.some((line) => line.startsWith("[mcp] legacy is unavailable: "))).toBe(true);

    // Tried again after its backoff, in the background: back without a turn waiting for it.
    await sse.start();
    await expect.poll(() => mcp.status()[0].connected, { timeout: 15_000 }).toBe(true);
    const back = await mcp.tools();
    expect(back.map((t) => t.name)).toEqual(["legacy__echo"]);
    expect(mcp.status()[0]).toMatchObject({ connected: true, tools: ["legacy__echo"] });
    // A new session, through the fallback again.
    expect(sse.counts).toEqual({ streamablePosts: 2, streams: 2 });

    expect(await named(back, "legacy__echo").execute({ text: "again" }, context())).toBe("echo: again");
    expect(sse.calls).toEqual([{ text: "again" }]);
  });

  it("connects again when the server restarted between two turns and forgot the session: the next call works", async () => {
    const sse = await serve();
    const { mcp } = connect({ legacy: { url: sse.url, type: "sse" } });
    expect((await mcp.tools()).map((t) => t.name)).toEqual(["legacy__echo"]);

    // Down and up again while no turn asked: the dropped stream tells the client, which opens a new session.
    await sse.stop();
    await sse.start();
    await expect.poll(() => sse.counts.streams, { timeout: 15_000 }).toBe(2);
    await expect.poll(() => mcp.status()[0].connected, { timeout: 15_000 }).toBe(true);
    const next = await mcp.tools();
    expect(next.map((t) => t.name)).toEqual(["legacy__echo"]);
    expect(await named(next, "legacy__echo").execute({ text: "still here" }, context())).toBe("echo: still here");
  });

  it("leaves no listener on the turn's signal once a call is over, as the agents run tools: a turn's signal outlives its calls", async () => {
    const sse = await serve();
    const { mcp } = connect({ legacy: { url: sse.url, type: "sse" } });
    const echo = named(await mcp.tools(), "legacy__echo");
    const turn = new AbortController();
    const signal = AbortSignal.any([turn.signal, AbortSignal.timeout(60_000)]);
    for (const text of ["one", "two", "three"]) {
      const call = { type: "tool-call" as const, toolCallId: randomUUID(), toolName: echo.name, input: { text } };
      expect(await runTool([echo], call, { ...context(), signal })).toMatchObject({ output: `echo: ${text}` });
    }
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });
});

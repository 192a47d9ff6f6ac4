import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chatTurn, request } from "../support/api";
import { startMockMcpServer, type MockMcpServer } from "../../scripts/mock-mcp-server.mjs";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import type { Part } from "@threadline/history/parts";
import { integrationApp } from "../support/integration";

// An operator's MCP server, a real one from the protocol's SDK over
// Streamable HTTP: its tools reach Researcher as <server>__<tool>, every call
// asks first unless autoApprove names it, a server that is down is a missing
// tool for that turn (never a failed turn), a slow call times out and a long
// result is cut with a note.
describe.each(["inline", "inngest"] as const)("MCP tool servers (%s runtime)", (runtime) => {
  let mcp: MockMcpServer;
  beforeAll(async () => {
    mcp = await startMockMcpServer();
  });
  afterAll(() => mcp.close());
  beforeEach(() => {
    mcp.calls.length = 0;
    mcp.notes.length = 0;
  });
  const t = integrationApp({
    runtime,
    settings: () => {
      const config = { mcpServers: { notes: { url: mcp.url, headers: { Authorization: "Bearer t0ken" }, autoApprove: ["lookup", "slow", "big"] } } };
      return { MCP_SERVERS: JSON.stringify(config), MCP_TOOL_TIMEOUT_SECONDS: "1", MCP_RESULT_MAX_CHARS: "200" };
    },
    // Inline, as the server does when it starts: a decided reply goes on.
    dueWork: true,
  });

  const send = (content: string) => chatTurn(chat, { message: { id: randomUUID(), content } }, t.me.cookie);
  const lastReply = async (threadId: string) => (await t.app.history().get({ owner: t.me.id, threadId })).at(-1)!;
  const resultOf = (parts: Part[], toolName: string) => parts.find((p): p is Extract<Part, { type: "tool-result" }> => p.type === "tool-result" && p.toolName === toolName);
  /** The tools the model was offered, by the last request that offered any. */
  const offered = () => {
    const requests = t.mock.requests as { tools?: { function: { name: string } }[] }[];
    const researcher = requests.findLast((r) => r.tools?.some((t) => t.function.name !== "hand_over" && t.function.name !== "call_agent"));
    return (researcher?.tools ?? []).map((t) => t.function.name);
  };

  it("gives the server's tools to Researcher; a call asks first, and runs once, after the approval", async () => {
    const turn = await send('[[call:notes__record_note:{"text":"buy milk"}]]');
    expect(turn.response.status).toBe(200);
    expect(offered()).toEqual(expect.arrayContaining(["notes__record_note", "notes__lookup", "calculate"]));
    const asked = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request");
    expect(asked).toBeDefined();
    expect(mcp.calls).toEqual([]);
    const threadId = turn.threadId!;
    const reply = await lastReply(threadId);
    expect(reply.status).toBe("waiting");
    expect(reply.parts.find((p) => p.type === "tool-call")).toMatchObject({ toolName: "notes__record_note", agentName: "Researcher", input: { text: "buy milk" } });

    const decided = await decisionRoute.POST(
      request(`/api/threads/${threadId}/approvals/${asked!.approvalId}`, { method: "POST", cookie: t.me.cookie, json: { approved: true } }),
      { params: Promise.resolve({ id: threadId, approvalId: asked!.approvalId }) },
    );
    expect(decided.status).toBe(202);
    await expect.poll(async () => (await lastReply(threadId)).status, { timeout: 15_000 }).toBe("complete");
    // The approval's id rides along as the call's idempotency key.
    expect(mcp.calls).toEqual([{ tool: "record_note", input: { text: "buy milk" }, authorization: "Bearer t0ken", key: asked!.approvalId }]);
    expect(mcp.notes).toEqual([{ text: "buy milk", key: asked!.approvalId }]);
    expect(resultOf((await lastReply(threadId)).parts, "notes__record_note")).toMatchObject({ output: "noted: buy milk" });
  });

  it("runs a tool autoApprove names without asking", async () => {
    const turn = await send('[[call:notes__lookup:{"word":"ephemeral"}]]');
    expect(turn.chunks.some((c) => c.type === "tool-approval-request")).toBe(false);
    expect(mcp.calls).toEqual([{ tool: "lookup", input: { word: "ephemeral" }, authorization: "Bearer t0ken", key: expect.any(String) }]);
    const reply = await lastReply(turn.threadId!);
    expect(reply.status).toBe("complete");
    expect(resultOf(reply.parts, "notes__lookup")).toMatchObject({ output: "ephemeral means something" });
  });

  it("ends a slow call at the timeout, and cuts a long result with a note: errors the model reads, not failed turns", async () => {
    const slow = await send("[[call:notes__slow:{}]]");
    const slowReply = await lastReply(slow.threadId!);
    expect(slowReply.status).toBe("complete");
    expect(resultOf(slowReply.parts, "notes__slow")).toMatchObject({ error: 'The MCP server "notes" did not answer within 1 s.' });

    const big = await send('[[call:notes__big:{"chars":5000}]]');
    const output = resultOf((await lastReply(big.threadId!)).parts, "notes__big")?.output as string;
    expect(output.startsWith("x".repeat(200))).toBe(true);
    expect(output).toContain("[cut: the result was 5,000 characters; the first 200 are shown]");
    expect(output.length).toBeLessThan(300);
  });

  it("leaves a server that is down out of the turn, which still answers; its tools are back once it answers again", async () => {
    await mcp.stop();
    try {
      // The kept list still offers its tools until a call finds it gone: that call's error is the model's to read.
      const found = await send('[[call:notes__lookup:{"word":"gone"}]]');
      expect(resultOf((await lastReply(found.threadId!)).parts, "notes__lookup")).toMatchObject({ error: expect.stringContaining('The MCP server "notes" is unavailable') });
      await expect.poll(() => t.app.mcp().status()[0].connected, { timeout: 10_000 }).toBe(false);

      const turn = await send('[[call:notes__lookup:{"word":"gone"}]]');
      expect(turn.response.status).toBe(200);
      expect(turn.chunks.some((c) => c.type === "error")).toBe(false);
      expect(offered().filter((name) => name.startsWith("notes__"))).toEqual([]);
      const reply = await lastReply(turn.threadId!);
      expect(reply.status).toBe("complete");
      // The model asked for a tool it was not offered: an error it reads, and it answers.
      expect(resultOf(reply.parts, "notes__lookup")).toMatchObject({ error: expect.any(String) });
      expect(mcp.calls).toEqual([]);
    } finally {
      await mcp.start();
    }
    // Tried again after its backoff, with no turn waiting for it.
    await expect.poll(() => t.app.mcp().status()[0].connected, { timeout: 15_000 }).toBe(true);
    const back = await send('[[call:notes__lookup:{"word":"back"}]]');
    expect(resultOf((await lastReply(back.threadId!)).parts, "notes__lookup")).toMatchObject({ output: "back means something" });
    expect(mcp.calls).toHaveLength(1);
  });
});

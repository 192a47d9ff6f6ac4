import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { REASONING_TEXT } from "../../scripts/mock-model-server.mjs";
import type { TimelineEntry } from "@/lib/protocol/threads";
import { chatTurn, params, replyParts, request, signaturesIn, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as timeline from "@/app/api/threads/[id]/timeline/route";
import * as history from "@/app/api/threads/[id]/history/route";
import { integrationApp } from "../support/integration";

// The default network (Triage, then Researcher with the tools) over the real
// OpenAI-compatible provider and the mock model server, against the real
// database: what is streamed, stored, served and sent back to the model.
const t = integrationApp();

async function turn(body: Record<string, unknown>, cookie = t.me.cookie) {
  const result = await chatTurn(chat, body, cookie);
  return { ...result, threadId: result.threadId! };
}
const msg = (content: string) => ({ id: randomUUID(), content });

async function timelineOf(threadId: string, cookie = t.me.cookie): Promise<TimelineEntry[]> {
  const response = await timeline.GET(request(`/api/threads/${threadId}/timeline`, { cookie }), params(threadId));
  expect(response.status).toBe(200);
  return (await response.json()).parts;
}

type OpenAIMessage = { role: string; content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };
const requestMessages = (i: number) => (t.mock.requests[i] as { messages: OpenAIMessage[] }).messages;
const requestTools = (i: number) => ((t.mock.requests[i] as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);

const TWO_TOOLS = '[[reason]] What time is it? [[call:current_time:{"timeZone":"Asia/Tokyo"}]] [[call:calculate:{"expression":"6 * 7"}]]';

describe("an agent that acts", () => {
  it("hands over, runs two tools, and stores in order the hand-over, reasoning, both calls, both results and the text", async () => {
    const a = await turn({ message: msg(TWO_TOOLS) });
    expect(a.response.status).toBe(200);
    // Triage (offered only hand_over) → Researcher (offered the tools) → Researcher again with the results.
    expect(requestTools(0).sort()).toEqual(["call_agent", "hand_over"]);
    expect(requestTools(1).sort()).toEqual([
      "calculate",
      "cancel_reminder",
      "create_document",
      "current_time",
      "forget",
      "read_document",
      "remember",
      "schedule_reminder",
      "search_threads",
      "update_document",
    ]);
    expect(t.mock.requests).toHaveLength(3);

    const parts = await timelineOf(a.threadId);
    expect(parts.map((p) => [p.role, p.type, "agentName" in p ? p.agentName : undefined])).toEqual([
      ["user", "text", undefined],
      ["assistant", "reasoning", "Triage"],
      ["assistant", "handoff", "Triage"],
      ["assistant", "reasoning", "Researcher"],
      ["assistant", "tool-call", "Researcher"],
      ["assistant", "tool-call", "Researcher"],
      ["assistant", "tool-result", "Researcher"],
      ["assistant", "tool-result", "Researcher"],
      ["assistant", "reasoning", "Researcher"],
      ["assistant", "text", "Researcher"],
    ]);
    const [, , handoff, thought, timeCall, calcCall, timeResult, calcResult, , answer] = parts;
    expect(handoff).toMatchObject({ to: "Researcher" });
    expect(thought).toMatchObject({ text: REASONING_TEXT });
    expect(thought.type === "reasoning" && typeof thought.durationMs).toBe("number");
    expect(timeCall).toMatchObject({ toolName: "current_time", input: { timeZone: "Asia/Tokyo" } });
    expect(calcCall).toMatchObject({ toolName: "calculate", input: { expression: "6 * 7" } });
    expect(timeResult).toMatchObject({ toolName: "current_time", toolCallId: (timeCall as { toolCallId: string }).toolCallId });
    expect(timeResult).toMatchObject({ output: { place: "Asia/Tokyo", utcOffset: "+09:00" } });
    expect(calcResult).toMatchObject({ toolCallId: (calcCall as { toolCallId: string }).toolCallId, output: { result: "42" } });
    expect(answer.type === "text" && answer.text).toMatch(/^Tool results: current_time → .*"utcOffset":"\+09:00".*; calculate → .*"result":"42"/);
    // Every part of the reply belongs to one message, the one the stream started.
    const start = a.chunks.find((c) => c.type === "start") as { messageId: string };
    expect(new Set(parts.slice(1).map((p) => p.messageId))).toEqual(new Set([start.messageId]));

    // The stream carried the same timeline: agents, the hand-over, tool cards with their outputs, then the answer.
    expect(a.chunks.filter((c) => c.type === "data-agent").map((c) => (c as { data: { name: string } }).data.name)).toEqual(["Triage", "Researcher"]);
    expect(a.chunks.filter((c) => c.type === "tool-output-available")).toHaveLength(2);
    expect(a.text).toBe(answer.type === "text" ? answer.text : "");
  });

  it("sends earlier calls and their results back to the model in its own format, from the client's copy and from the database", async () => {
    const a = await turn({ message: msg(TWO_TOOLS) });
    const signed = signaturesIn(a.chunks);
    const first = a.chunks.find((c) => c.type === "start") as { messageId: string };
    const userId = [...signed.keys()].find((id) => id !== first.messageId)!;
    const copy = [
      { id: userId, role: "user", parts: [{ type: "text", text: TWO_TOOLS }], ...signed.get(userId) },
      { id: first.messageId, role: "assistant", parts: await replyParts(a.chunks), ...signed.get(first.messageId) },
    ];

    for (const source of ["client", "database"] as const) {
      t.mock.requests.length = 0;
      const next = await turn({ threadId: a.threadId, message: msg(`thanks (${source})`), ...(source === "client" ? { history: copy } : {}) });
      expect(next.response.headers.get("x-history-source")).toBe(source);
      const sent = requestMessages(0);
      const calls = sent.flatMap((m) => m.tool_calls ?? []);
      expect(calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
        ["current_time", { timeZone: "Asia/Tokyo" }],
        ["calculate", { expression: "6 * 7" }],
      ]);
      const results = sent.filter((m) => m.role === "tool");
      expect(results.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id));
      expect(JSON.parse(results[1].content!)).toMatchObject({ result: "42" });
      // Each call comes right before its results, and the hand-over and reasoning are not replayed.
      const callIndex = sent.findIndex((m) => m.tool_calls);
      expect(sent[callIndex + 1].role).toBe("tool");
      expect(JSON.stringify(sent)).not.toContain(REASONING_TEXT);
      // Later turns keep the first one's client copy honest: the copy above stays verifiable.
      copy.push(
        { id: [...signaturesIn(next.chunks).keys()][0], role: "user", parts: [{ type: "text", text: `thanks (${source})` }], ...[...signaturesIn(next.chunks).values()][0] },
        {
          id: (next.chunks.find((c) => c.type === "start") as { messageId: string }).messageId,
          role: "assistant",
          parts: await replyParts(next.chunks),
          ...[...signaturesIn(next.chunks).values()][1],
        },
      );
    }
  });

  it("a tool that throws yields an error result the model reads, and the turn completes", async () => {
    const a = await turn({ message: msg('[[call:calculate:{"expression":"2 +"}]] [[call:current_time:{"timeZone":"Atlantis"}]]') });
    expect(a.response.status).toBe(200);
    expect(a.chunks.at(-1)).toMatchObject({ type: "finish" });
    const results = (await timelineOf(a.threadId)).filter((p) => p.type === "tool-result");
    expect(results.map((r) => [r.toolName, typeof r.error])).toEqual([
      ["calculate", "string"],
      ["current_time", "string"],
    ]);
    expect(results[1].error).toContain("Atlantis");
    expect(a.chunks.filter((c) => c.type === "tool-output-error")).toHaveLength(2);
    // The model got both errors and answered.
    expect(JSON.stringify(requestMessages(2))).toContain("Atlantis");
    expect(a.text).toMatch(/^Tool results: calculate → /);
  });

  it("search_threads finds what this identity said in another thread, never another identity's words", async () => {
    const mine = await turn({ message: msg("My favourite birds are flamingos, the pink ones.") });
    const stranger = await visitor();
    await turn({ message: msg("Stranger secret: flamingos are my password hint.") }, stranger.cookie);
    t.mock.requests.length = 0;
    const a = await turn({ message: msg('What did I say about flamingos? [[call:search_threads:{"query":"flamingos"}]]') });
    const result = (await timelineOf(a.threadId)).find((p) => p.type === "tool-result")!;
    const hits = (result.output as { hits: { snippet: string; threadId: string }[] }).hits;
    // The user's words and the reply that echoed them, both in the user's other thread.
    expect(hits.map((h) => h.snippet)).toContainEqual(expect.stringContaining("favourite birds are flamingos"));
    expect(new Set(hits.map((h) => h.threadId))).toEqual(new Set([mine.threadId]));
    expect(JSON.stringify(result)).not.toContain("Stranger secret");
    expect(JSON.stringify(t.mock.requests)).not.toContain("Stranger secret");
    // Not this very thread, which the model already reads.
    expect(hits.every((h) => h.threadId !== a.threadId)).toBe(true);
  });

  it("the flat history keeps today's shape: user and assistant text only", async () => {
    const a = await turn({ message: msg(TWO_TOOLS) });
    const response = await history.GET(request(`/api/threads/${a.threadId}/history`, { cookie: t.me.cookie }), params(a.threadId));
    const { messages } = await response.json();
    expect(messages.map((m: { role: string; content: string }) => [m.role, m.content.slice(0, 13)])).toEqual([
      ["user", "[[reason]] Wh"],
      ["assistant", "Tool results:"],
    ]);
    expect(Object.keys(messages[1]).sort()).toEqual(["content", "createdAt", "id", "role"]);
  });

  it("the timeline is owner-checked: another identity gets 404, as for a missing thread", async () => {
    const a = await turn({ message: msg("private") });
    const stranger = await visitor();
    const response = await timeline.GET(request(`/api/threads/${a.threadId}/timeline`, { cookie: stranger.cookie }), params(a.threadId));
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("not_found:thread");
  });
});

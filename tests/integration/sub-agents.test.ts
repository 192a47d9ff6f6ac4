import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { toolResultsReply } from "../../scripts/mock-model-server.mjs";
import type { Part } from "@threadline/history/parts";
import { canonicalParts } from "@threadline/history/codec";
import type { TimelineEntry } from "@/lib/protocol/threads";
import { threadExportSchema } from "@/lib/protocol/thread-export";
import { chatTurn, params, replyParts, request } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as timeline from "@/app/api/threads/[id]/timeline/route";
import * as history from "@/app/api/threads/[id]/history/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import { integrationApp } from "../support/integration";

// An agent calling another as a sub-agent, over the real OpenAI-compatible
// provider and the mock model server: Triage calls Researcher with a task,
// Researcher runs its own tool and answers, and Triage writes the answer from
// that result. Every part of the call carries the call it runs inside; the
// flat views stay flat; the model reads a well-formed conversation.
const t = integrationApp();

type OpenAIMessage = { role: string; content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string };
const requestMessages = (i: number) => (t.mock.requests[i] as { messages: OpenAIMessage[] }).messages;
const requestTools = (i: number) => ((t.mock.requests[i] as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name).sort();

const TASK = '[[call:calculate:{"expression":"6 * 7"}]]';
const CALLS_RESEARCHER = `[[call:call_agent:${JSON.stringify({ agent: "Researcher", task: TASK })}]]`;

describe("an agent that calls another as a sub-agent", () => {
  it("stores the call, the sub-agent's own parts inside it with their ids, its answer as the call's result, then the caller's answer", async () => {
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: CALLS_RESEARCHER } }, t.me.cookie);
    expect(turn.response.status).toBe(200);
    const threadId = turn.threadId!;

    // Triage (offered call_agent) → Researcher on the task alone (its tools) → Researcher with the result → Triage with the answer.
    expect(t.mock.requests).toHaveLength(4);
    expect(requestTools(0)).toEqual(["call_agent", "hand_over"]);
    expect(requestTools(1)).toContain("calculate");
    expect(requestMessages(1).filter((m) => m.role !== "system")).toEqual([{ role: "user", content: TASK }]);
    // The caller reads its call and the call's result, and nothing the sub-agent did inside it.
    const callerSees = requestMessages(3).filter((m) => m.role !== "system");
    expect(callerSees.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(callerSees[1].tool_calls?.map((c) => c.function.name)).toEqual(["call_agent"]);
    expect(callerSees[2].tool_call_id).toBe(callerSees[1].tool_calls![0].id);
    expect(JSON.stringify(callerSees)).not.toContain('"calculate"');

    const [, reply] = await t.app.history().get({ owner: t.me.id, threadId });
    const parts = reply.parts;
    const call = parts.find((p): p is Extract<Part, { type: "tool-call" }> => p.type === "tool-call" && p.toolName === "call_agent")!;
    const id = call.toolCallId;
    expect(call).toMatchObject({ agentName: "Triage", input: { agent: "Researcher", task: TASK } });
    expect(call).not.toHaveProperty("parentCallId");
    const inside = parts.filter((p) => "parentCallId" in p && p.parentCallId === id);
    const answer = toolResultsReply([{ name: "calculate", content: JSON.stringify({ expression: "6 * 7", result: "42" }) }]);
    expect(inside).toEqual([
      expect.objectContaining({ type: "tool-call", toolName: "calculate", agentName: "Researcher", rootCallId: id }),
      expect.objectContaining({ type: "tool-result", toolName: "calculate", output: { expression: "6 * 7", result: "42" }, agentName: "Researcher", rootCallId: id }),
      expect.objectContaining({ type: "text", text: answer, agentName: "Researcher", rootCallId: id }),
    ]);
    const result = parts.find((p) => p.type === "tool-result" && p.toolCallId === id);
    expect(result).toMatchObject({ toolName: "call_agent", agentName: "Triage", output: { agent: "Researcher", result: answer } });
    expect(result).not.toHaveProperty("parentCallId");
    expect(parts.at(-1)).toMatchObject({ type: "text", agentName: "Triage", text: expect.stringContaining("call_agent →") });

    // The stream the page read rebuilds the same reply, ids and all.
    expect(await replyParts(turn.chunks)).toEqual(canonicalParts(parts));

    // The timeline names every call's id, and where each part ran.
    const response = await timeline.GET(request(`/api/threads/${threadId}/timeline`, { cookie: t.me.cookie }), params(threadId));
    const entries: TimelineEntry[] = (await response.json()).parts;
    expect(entries.find((e) => e.type === "tool-call" && e.toolName === "call_agent")).toMatchObject({ callId: id });
    expect(entries.filter((e) => "parentCallId" in e && e.parentCallId === id)).toHaveLength(3);
    expect(entries.find((e) => e.type === "tool-call" && e.toolName === "calculate")).toMatchObject({ callId: expect.any(String), parentCallId: id, rootCallId: id });

    // The flat view stays flat: the caller's answer, not the sub-agent's words.
    const flat = await history.GET(request(`/api/threads/${threadId}/history`, { cookie: t.me.cookie }), params(threadId));
    const { messages } = await flat.json();
    expect(messages[1].content).toBe((parts.at(-1) as { text: string }).text);

    // Export and import keep the ids.
    const exported = await exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie: t.me.cookie }), params(threadId));
    const file = threadExportSchema.parse(await exported.json());
    const imported = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: t.me.cookie, json: file }), undefined);
    expect(imported.status).toBe(201);
    const { thread } = await imported.json();
    const [, again] = await t.app.history().get({ owner: t.me.id, threadId: thread.id });
    expect(again.parts).toEqual(parts);
  });
});

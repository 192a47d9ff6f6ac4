import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { chatTurn, params, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as usageRoute from "@/app/api/threads/[id]/usage/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import type { ThreadUsage, UsageSum } from "@/lib/protocol/usage";
import { integrationApp } from "../support/integration";

// Every model call a thread makes is counted where it was made: each agent's
// answers and a sub-agent's, the title and the summaries, by the model that
// made them, against what the mock model reported for each, and priced
// (MODEL_PRICES over the built-in table; a model with no price shows tokens
// without a cost). Stored with the reply, the title and the summary.
const SETTINGS = {
  MODEL_PROVIDER: "",
  MODEL: "",
  MODELS: "openai-compatible:mock-a, openai-compatible:mock-b",
  MODEL_PRICES: JSON.stringify({ "openai-compatible:mock-a": { input: 1, output: 2 } }),
  COMPACTION_MAX_MESSAGES: "6",
  COMPACTION_TARGET_MESSAGES: "4",
  COMPACTION_KEEP_TURNS: "1",
};

// "inngest-async": every step a request of its own, each replaying the steps before it from their memoized results:
// a call's usage comes back with its step's result, and is stored once.
describe.each(["inline", "inngest", "inngest-async"] as const)("usage and cost (%s runtime)", (runtime) => {
  const t = integrationApp({
    runtime: runtime === "inline" ? "inline" : "inngest",
    inngest: { mode: runtime === "inngest-async" ? "async" : "checkpointed" },
    titles: true,
    settings: SETTINGS,
  });

  const usageOf = async (threadId: string, cookie: string): Promise<ThreadUsage> => {
    const response = await usageRoute.GET(request(`/api/threads/${threadId}/usage`, { cookie }), params(threadId));
    expect(response.status).toBe(200);
    return response.json();
  };
  /** The mock's reports summed, as the app should have counted them. */
  const reported = (pick: (u: MockModelServer["usages"][number]) => boolean) => {
    const picked = t.mock.usages.filter(pick);
    const inputTokens = picked.reduce((n, u) => n + u.inputTokens, 0);
    const outputTokens = picked.reduce((n, u) => n + u.outputTokens, 0);
    return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, calls: picked.length };
  };
  const tokens = ({ inputTokens, outputTokens, totalTokens, calls }: UsageSum) => ({ inputTokens, outputTokens, totalTokens, calls });

  it("counts every call by agent, purpose and model, as the provider reported it, and prices the ones it knows", async () => {
    t.mock.usages.length = 0;
    t.mock.requests.length = 0;
    const me = await visitor();
    // Triage hands over, Researcher calls the tool, then answers: three answers; then the title.
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: '[[call:calculate:{"expression":"6 * 7"}]]' }, model: "openai-compatible:mock-a" }, me.cookie);
    expect(first.response.status).toBe(200);
    const threadId = first.threadId!;
    await expect.poll(() => t.mock.usages.filter((u) => u.kind === "title").length, { timeout: 15_000 }).toBe(1);
    // A follow-up by the unpriced model, answered by Triage alone.
    await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "thanks" }, model: "openai-compatible:mock-b" }, me.cookie);
    await expect.poll(async () => (await usageOf(threadId, me.cookie)).total.calls, { timeout: 15_000 }).toBe(t.mock.usages.length);

    const usage = await usageOf(threadId, me.cookie);
    expect(tokens(usage.total)).toEqual(reported(() => true));
    expect(tokens(usage.byPurpose.answer!)).toEqual(reported((u) => u.kind === "answer"));
    expect(tokens(usage.byPurpose.title!)).toEqual(reported((u) => u.kind === "title"));
    expect(usage.byPurpose.title!.calls).toBe(1);
    expect(tokens(usage.byModel["openai-compatible:mock-a"])).toEqual(reported((u) => u.model === "mock-a"));
    expect(tokens(usage.byModel["openai-compatible:mock-b"])).toEqual(reported((u) => u.model === "mock-b"));
    expect(usage.byAgent.Triage.calls).toBe(2);
    expect(usage.byAgent.Researcher.calls).toBe(2);
    expect(usage.byAgent.title.calls).toBe(1);
    // In the order they speak, the hidden calls after: the popover's lines stay where they were.
    expect(Object.keys(usage.byAgent)).toEqual(["Triage", "Researcher", "title"]);

    // mock-a at $1 in and $2 out per million tokens; mock-b has no price: the total has none either.
    const a = usage.byModel["openai-compatible:mock-a"];
    expect(a.cost).toBeCloseTo((a.inputTokens * 1 + a.outputTokens * 2) / 1_000_000, 12);
    expect(usage.byModel["openai-compatible:mock-b"].cost).toBeNull();
    expect(usage.total.cost).toBeNull();

    // By reply: the first reply's calls by agent, the follow-up's by Triage.
    const replies = Object.values(usage.byMessage);
    expect(replies.map((r) => r.calls).sort()).toEqual([1, 3]);
    expect(Object.keys(replies.find((r) => r.calls === 3)!.byAgent)).toEqual(["Triage", "Researcher"]);

    // The export carries every call, each with the message it wrote (a title's none); an import reads past it.
    const exported = await exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie: me.cookie }), params(threadId));
    const file = (await exported.json()) as ThreadExport;
    expect(file.usage).toHaveLength(usage.total.calls);
    expect(file.usage!.reduce((n, u) => n + u.inputTokens + u.outputTokens, 0)).toBe(usage.total.totalTokens);
    expect(file.usage!.filter((u) => u.purpose === "title")).toMatchObject([{ messageId: null, model: "openai-compatible:mock-a" }]);
    const replyIds = new Set(file.messages.filter((m) => m.role === "assistant").map((m) => m.id));
    expect(file.usage!.filter((u) => u.purpose === "answer").every((u) => replyIds.has(u.messageId!))).toBe(true);
    const imported = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: me.cookie, json: file }), undefined);
    expect(imported.status).toBe(201);
    const copy = ((await imported.json()) as { thread: { id: string } }).thread.id;
    expect((await usageOf(copy, me.cookie)).total.calls).toBe(0);

    // Another owner sees nothing of it.
    const other = await visitor();
    const refused = await usageRoute.GET(request(`/api/threads/${threadId}/usage`, { cookie: other.cookie }), params(threadId));
    expect(refused.status).toBe(404);
  });

  it("counts a sub-agent's calls as its own, and a summary's as the summary's", async () => {
    t.mock.usages.length = 0;
    const me = await visitor();
    const task = '[[call:calculate:{"expression":"2 + 2"}]]';
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: `[[call:call_agent:${JSON.stringify({ agent: "Researcher", task })}]]` } }, me.cookie);
    const threadId = first.threadId!;
    for (const words of ["two", "three", "four"]) await chatTurn(chat, { threadId, message: { id: randomUUID(), content: words } }, me.cookie);
    await expect.poll(() => t.mock.usages.filter((u) => u.kind === "summary").length, { timeout: 20_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await usageOf(threadId, me.cookie)).total.calls, { timeout: 15_000 }).toBe(t.mock.usages.length);
    const usage = await usageOf(threadId, me.cookie);
    // Researcher, called by Triage: its tool call and its answer; the rest of the answers are the turns' own.
    const sub = usage.byPurpose["sub-agent"]!;
    const own = usage.byPurpose.answer!;
    expect(sub.calls).toBe(2);
    expect(sub.inputTokens).toBeGreaterThan(0);
    expect(own.inputTokens + sub.inputTokens).toBe(reported((u) => u.kind === "answer").inputTokens);
    expect(own.outputTokens + sub.outputTokens).toBe(reported((u) => u.kind === "answer").outputTokens);
    expect(tokens(usage.byPurpose.summary!)).toEqual(reported((u) => u.kind === "summary"));
    expect(tokens(usage.total)).toEqual(reported(() => true));
    // The default model (mock-a) is priced: every call has a cost.
    expect(usage.total.cost).toBeGreaterThan(0);
  });
});

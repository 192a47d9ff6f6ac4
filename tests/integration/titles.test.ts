import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { runNow } from "@/lib/agent/turn/steps";
import { nameThread } from "@/lib/agent/title";
import { runTurn } from "@/lib/agent/turn/turn";
import { createNetwork } from "@/lib/agent/network/network";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { titleFromMessage } from "@threadline/history/title";
import { languageModelFor } from "@/lib/model/provider";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { chatTurn, params, request } from "../support/api";
import { followNews } from "../support/thread-news";
import * as chat from "@/app/api/chat/route";
import * as thread from "@/app/api/threads/[id]/route";
import * as list from "@/app/api/threads/route";
import * as events from "@/app/api/threads/events/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import { integrationApp } from "../support/integration";
import { storedTitle, titleChunks, titleRequests } from "../support/titles";

// Titles by the model, through the chat route on the inline runtime, with the
// real provider code talking to the mock model server: its title is the
// message's [[title:TEXT]], and other markers make the title request fail,
// answer nothing, hang, or wait for the test.
// Long enough that a title held while the test renames the thread is still awaited.
const t = integrationApp({ titles: true, settings: { TITLE_TIMEOUT_SECONDS: "60" } });

let warn: MockInstance<typeof console.warn>;
let info: MockInstance<typeof console.info>;
beforeEach(async () => {
  warn = vi.spyOn(console, "warn");
  info = vi.spyOn(console, "info");
});
afterEach(() => {
  vi.restoreAllMocks();
});

const turn = (body: Record<string, unknown>) => chatTurn(chat, body, t.me.cookie);
const msg = (content: string) => ({ id: randomUUID(), content });

/**
 * Once the title of the thread has been asked for and dealt with, whatever
 * came of it: stored, or a line in the log saying why not (it is asked for
 * after the reply's stream has ended, so the turn's end says nothing of it).
 */
async function namingEnded(threadId: string) {
  const said = () => [...warn.mock.calls, ...info.mock.calls].some((call) => String(call[0]).includes(threadId));
  await vi.waitFor(async () => expect(said() || (await storedTitle(t.pool, threadId)).title_source !== "message").toBe(true), { timeout: 10_000, interval: 20 });
}

async function listedTitle(threadId: string) {
  const response = await list.GET(request("/api/threads", { cookie: t.me.cookie }), undefined as never);
  const { threads } = (await response.json()) as { threads: { id: string; title: string }[] };
  return threads.find((t) => t.id === threadId)?.title;
}

describe("the model's title", () => {
  it("names a thread whose first reply waited for a decision once that reply is complete, and not before", async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const content = `[[call:schedule_reminder:{"at":"${at}","text":"stretch"}]] [[title:Stretch reminder]]`;
    const first = await turn({ message: msg(content), timeZone: "UTC" });
    const threadId = first.threadId!;
    const asked = first.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request")!;
    expect(asked).toBeDefined();
    // A reply that waits is not the thread's first complete reply: no title yet.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(titleRequests(t.mock)).toHaveLength(0);

    const decided = await decisionRoute.POST(
      request(`/api/threads/${threadId}/approvals/${asked.approvalId}`, { method: "POST", cookie: t.me.cookie, json: { approved: true, timeZone: "UTC" } }),
      { params: Promise.resolve({ id: threadId, approvalId: asked.approvalId }) },
    );
    expect(decided.status).toBe(202);
    await vi.waitFor(async () => expect(await storedTitle(t.pool, threadId)).toEqual({ title: "Stretch reminder", title_source: "model" }), { timeout: 10_000, interval: 50 });
    expect(titleRequests(t.mock)).toHaveLength(1);
  });

  it("is asked for after the first reply's finish, stored, and told to the owner's pages as news", async () => {
    const content = "Plan a trip to Porto [[title-held]] [[title:Porto weekend plans]]";
    const { response, chunks, text, threadId } = await turn({ message: msg(content) });
    // The model holds its title: the reply's stream has finished all the same.
    expect(response.status).toBe(200);
    expect(text).toBe(echoReply(content, 1, 0));
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    expect(titleChunks(chunks)).toEqual([]);
    await vi.waitFor(() => expect(titleRequests(t.mock)).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: titleFromMessage(content), title_source: "message" });
    // The thread is free while the title is on its way: a next message is answered.
    const next = await turn({ threadId, message: msg("Meanwhile, a second question") });
    expect(next.response.status).toBe(200);
    expect(next.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });

    const news = await followNews(events, t.app, t.pool, t.me.cookie, t.me.id);
    try {
      t.mock.releaseTitles();
      // Each round waits for news of the thread: the sidebar reads the list when it hears it.
      while ((await listedTitle(threadId!)) !== "Porto weekend plans") {
        while ((await news.next()).threadId !== threadId);
      }
    } finally {
      news.abort();
    }
    // The model read the exchange: the message and the reply.
    const asked = String(titleRequests(t.mock)[0].messages.at(-1)?.content);
    expect(asked).toContain(content);
    expect(asked).toContain(text);
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "Porto weekend plans", title_source: "model" });
  });

  it("is asked for once: not after a later reply, nor for the first message sent again", async () => {
    const first = msg("Name this once [[title:Named once]]");
    const { threadId } = await turn({ message: first });
    await namingEnded(threadId!);
    expect(titleRequests(t.mock)).toHaveLength(1);
    const again = await turn({ message: first });
    const next = await turn({ threadId, message: msg("And a follow-up [[title:Renamed later]]") });
    expect(again.response.status).toBe(200);
    expect(next.response.status).toBe(200);
    expect(titleRequests(t.mock)).toHaveLength(1);
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "Named once", title_source: "model" });
  });

  it("never replaces a rename made while it was on its way", async () => {
    const content = "Rename me first [[title-held]] [[title:Model's idea]]";
    const { response, text, threadId } = await turn({ message: msg(content) });
    expect(response.status).toBe(200);
    expect(text).toBe(echoReply(content, 1, 0));
    // The title request has reached the model, which holds its answer: the user renames the thread now.
    await vi.waitFor(() => expect(titleRequests(t.mock)).toHaveLength(1), { timeout: 10_000, interval: 20 });
    const renamed = await thread.PATCH(request(`/api/threads/${threadId}`, { method: "PATCH", cookie: t.me.cookie, json: { title: "My own name" } }), params(threadId!));
    expect(renamed.status).toBe(200);
    t.mock.releaseTitles();
    await namingEnded(threadId!);
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "My own name", title_source: "user" });
  });

  it("comes after a rename only as the rename", async () => {
    const { threadId } = await turn({ message: msg("Titled then renamed [[title:Model title]]") });
    await namingEnded(threadId!);
    const renamed = await thread.PATCH(request(`/api/threads/${threadId}`, { method: "PATCH", cookie: t.me.cookie, json: { title: "Mine" } }), params(threadId!));
    expect(renamed.status).toBe(200);
    await turn({ threadId, message: msg("More") });
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "Mine", title_source: "user" });
  });

  it("is asked for again after an edit of the first message, not after a regenerate, and never over a rename", async () => {
    const first = msg("About cats [[title:Cats]]");
    const { threadId, chunks } = await turn({ message: first });
    await namingEnded(threadId!);
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "Cats", title_source: "model" });
    const replyId = chunks.find((chunk) => chunk.type === "start")!.messageId!;

    const regenerated = await turn({ threadId, message: first, replaces: replyId });
    expect(regenerated.response.status).toBe(200);
    const dogs = msg("About dogs instead [[title:Dogs]]");
    const edited = await turn({ threadId, message: dogs, replaces: first.id });
    expect(edited.response.status).toBe(200);
    await vi.waitFor(async () => expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "Dogs", title_source: "model" }), { timeout: 10_000, interval: 20 });
    // The first reply's title and the edit's: the regenerate asked for none.
    expect(titleRequests(t.mock)).toHaveLength(2);

    const renamed = await thread.PATCH(request(`/api/threads/${threadId}`, { method: "PATCH", cookie: t.me.cookie, json: { title: "Pets" } }), params(threadId!));
    expect(renamed.status).toBe(200);
    const again = await turn({ threadId, message: msg("About birds [[title:Birds]]"), replaces: dogs.id });
    expect(again.response.status).toBe(200);
    await namingEnded(threadId!);
    await vi.waitFor(() => expect(info.mock.calls.some((call) => String(call[0]).includes(threadId!))).toBe(true), { timeout: 10_000, interval: 20 });
    expect(titleRequests(t.mock)).toHaveLength(3);
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "Pets", title_source: "user" });
  });

  for (const [marker, what] of [
    ["[[title-error]]", "a failing title call"],
    ["[[title-empty]]", "an empty title"],
  ]) {
    it(`${what} leaves the turn whole and the first words as the title`, async () => {
      const content = `Keep my first words ${marker}`;
      const { response, chunks, text, threadId } = await turn({ message: msg(content) });
      expect(response.status).toBe(200);
      expect(text).toBe(echoReply(content, 1, 0));
      expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
      expect(chunks.some((chunk) => chunk.type === "error")).toBe(false);
      await namingEnded(threadId!);
      expect(titleRequests(t.mock)).toHaveLength(1);
      expect(await storedTitle(t.pool, threadId!)).toEqual({ title: titleFromMessage(content), title_source: "message" });
    });
  }
});

describe("a title call slower than its cap", () => {
  it("is given up: the turn finishes with its reply and the first words stay", async () => {
    const history = new PostgresHistoryAdapter(t.pool);
    const network = createNetwork({
      agents: [{ name: "Assistant", system: "Answer." }],
      model: languageModelFor({ provider: "openai-compatible", model: "mock-model", baseURL: t.mock.url }),
      titleTimeoutMs: 300,
    });
    const chunks: UIMessageChunk[] = [];
    const content = "Take your time [[title-slow]]";
    const outcome = await runTurn(
      { owner: t.me.id, turnId: randomUUID(), message: { ...msg(content), role: "user" } },
      { history, network, publish: async (chunk) => void chunks.push(chunk) },
    );
    expect(outcome.status).toBe("complete");
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    expect(outcome.title).toMatchObject({ threadId: outcome.threadId, message: content });
    expect(await nameThread(outcome.title!, { history, network, step: runNow })).toBeNull();
    expect(titleRequests(t.mock)).toHaveLength(1);
    expect(await storedTitle(t.pool, outcome.threadId)).toEqual({ title: titleFromMessage(content), title_source: "message" });
  });
});

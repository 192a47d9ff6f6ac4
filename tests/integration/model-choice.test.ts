import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chatTurn, params, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as messagesRoute from "@/app/api/threads/[id]/messages/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import * as versionsRoute from "@/app/api/threads/[id]/versions/route";
import * as timelineRoute from "@/app/api/threads/[id]/timeline/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import type { MessagesPage, ThreadResponse, VersionsPage } from "@/lib/protocol/threads";
import { integrationApp } from "../support/integration";

// The model picked in the page answers: POST /api/chat names it, the real
// provider code asks the mock server for it over HTTP, and the reply records
// it, as does the thread (what the picker starts from after a reload).
const t = integrationApp({
  titles: true,
  settings: {
    MODEL_PROVIDER: "",
    MODEL: "",
    MODELS: "openai-compatible:mock-a=Mock A, openai-compatible:mock-b=Mock B, offline:threadline-offline",
    UTILITY_MODEL: "openai-compatible:mock-utility",
  },
});

type MockRequest = { model: string; messages: { role: string; content: unknown }[] };
const answerModels = () => (t.mock.requests as MockRequest[]).filter((r) => !JSON.stringify(r.messages).includes("title")).map((r) => r.model);
const page = async (threadId: string, cookie: string): Promise<MessagesPage> =>
  (await messagesRoute.GET(request(`/api/threads/${threadId}/messages`, { cookie }), params(threadId))).json();
const thread = async (threadId: string, cookie: string) =>
  ((await (await threadRoute.GET(request(`/api/threads/${threadId}`, { cookie }), params(threadId))).json()) as ThreadResponse).thread;

describe("the model picked for a message", () => {
  it("answers each message with the model it names, and each reply and the thread record it", async () => {
    const me = await visitor();
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: "first" }, model: "openai-compatible:mock-b" }, me.cookie);
    expect(first.response.status).toBe(200);
    const threadId = first.threadId!;
    // The stream says which model writes the reply before its first word.
    expect(first.chunks.find((c) => c.type === "start")).toMatchObject({ messageMetadata: { model: "openai-compatible:mock-b" } });
    expect((await thread(threadId, me.cookie)).model).toBe("openai-compatible:mock-b");

    const second = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "second" }, model: "openai-compatible:mock-a" }, me.cookie);
    expect(second.response.status).toBe(200);
    const third = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "third" }, model: "offline:threadline-offline" }, me.cookie);
    expect(third.response.status).toBe(200);
    expect(third.text).not.toBe("");

    // The provider was asked for each by its own id; the offline model is no HTTP request.
    const asked = (t.mock.requests as MockRequest[]).map((r) => r.model);
    expect(asked.filter((m) => m !== "mock-utility")).toEqual(["mock-b", "mock-a"]);
    // The title (the first reply's) went to UTILITY_MODEL, not to the thread's model.
    expect(asked).toContain("mock-utility");

    const { messages } = await page(threadId, me.cookie);
    expect(messages.map((m) => [m.role, m.model])).toEqual([
      ["user", undefined],
      ["assistant", "openai-compatible:mock-b"],
      ["user", undefined],
      ["assistant", "openai-compatible:mock-a"],
      ["user", undefined],
      ["assistant", "offline:threadline-offline"],
    ]);
    expect((await thread(threadId, me.cookie)).model).toBe("offline:threadline-offline");
    // The timeline says it of each part of a reply.
    const timeline = (await (await timelineRoute.GET(request(`/api/threads/${threadId}/timeline`, { cookie: me.cookie }), params(threadId))).json()) as {
      parts: { role: string; model?: string }[];
    };
    expect([...new Set(timeline.parts.filter((e) => e.role === "assistant").map((e) => e.model))]).toEqual([
      "openai-compatible:mock-b",
      "openai-compatible:mock-a",
      "offline:threadline-offline",
    ]);
    expect(timeline.parts.filter((e) => e.role === "user").every((e) => e.model === undefined)).toBe(true);
  });

  it("answers with the default (the first of MODELS) when the message names none, and records it", async () => {
    const me = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "no pick" } }, me.cookie);
    expect(turn.response.status).toBe(200);
    expect(answerModels()).toEqual(["mock-a"]);
    const { messages } = await page(turn.threadId!, me.cookie);
    expect(messages.at(-1)?.model).toBe("openai-compatible:mock-a");
    // Its title is asked of UTILITY_MODEL once the turn is over (and before the next test).
    await expect.poll(() => (t.mock.requests as MockRequest[]).some((r) => r.model === "mock-utility")).toBe(true);
  });

  it("refuses a model that is not on offer with 400 invalid:model, and stores nothing", async () => {
    const me = await visitor();
    const id = randomUUID();
    for (const model of ["openai:gpt-4.1-mini", "mock-a", "openai-compatible:mock-c"]) {
      const turn = await chatTurn(chat, { message: { id, content: "hello" }, model }, me.cookie);
      expect(turn.response.status).toBe(400);
      expect(turn.error?.error.code).toBe("invalid:model");
      expect(turn.error?.error.message).toContain(model);
    }
    const blank = await chatTurn(chat, { message: { id, content: "hello" }, model: "" }, me.cookie);
    expect(blank.response.status).toBe(400);
    expect(blank.error?.error.message).toMatch(/model/);
    expect(t.mock.requests).toEqual([]);
    // The message was never stored: sending it again with a model on offer starts its thread.
    const sent = await chatTurn(chat, { message: { id, content: "hello" }, model: "openai-compatible:mock-b" }, me.cookie);
    expect(sent.response.status).toBe(200);
    expect((await page(sent.threadId!, me.cookie)).messages).toHaveLength(2);
  });

  it("regenerates a reply with another model: the new version records its model, the old one keeps its own", async () => {
    const me = await visitor();
    const userId = randomUUID();
    const first = await chatTurn(chat, { message: { id: userId, content: "regenerate me" }, model: "openai-compatible:mock-a" }, me.cookie);
    const threadId = first.threadId!;
    const before = await page(threadId, me.cookie);
    const [, reply] = before.messages;

    const again = await chatTurn(
      chat,
      { threadId, message: { id: userId, content: "regenerate me" }, replaces: reply.id, history: [], model: "openai-compatible:mock-b" },
      me.cookie,
    );
    expect(again.response.status).toBe(200);
    expect(answerModels()).toEqual(["mock-a", "mock-b"]);

    const after = await page(threadId, me.cookie);
    expect(after.messages.map((m) => m.model)).toEqual([undefined, "openai-compatible:mock-b"]);
    const versions = (await (await versionsRoute.GET(request(`/api/threads/${threadId}/versions`, { cookie: me.cookie }), params(threadId))).json()) as VersionsPage;
    const [switcher] = versions.versions;
    expect(switcher.versions).toHaveLength(2);
    // Back to the first version: it still says the model that wrote it.
    const back = await versionsRoute.POST(
      request(`/api/threads/${threadId}/versions`, { method: "POST", cookie: me.cookie, json: { messageId: reply.id } }),
      params(threadId),
    );
    expect(back.status).toBe(200);
    expect((await page(threadId, me.cookie)).messages.map((m) => m.model)).toEqual([undefined, "openai-compatible:mock-a"]);
  });

  it("export names each reply's model (JSON and Markdown), and an import keeps them, the thread's model too", async () => {
    const me = await visitor();
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: "export me" }, model: "openai-compatible:mock-b" }, me.cookie);
    const threadId = first.threadId!;
    await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "and me" }, model: "openai-compatible:mock-a" }, me.cookie);

    const json = await exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie: me.cookie }), params(threadId));
    const file = (await json.json()) as ThreadExport;
    expect(file.messages.map((m) => m.model)).toEqual([undefined, "openai-compatible:mock-b", undefined, "openai-compatible:mock-a"]);
    const markdown = await (await exportRoute.GET(request(`/api/threads/${threadId}/export?format=markdown`, { cookie: me.cookie }), params(threadId))).text();
    expect(markdown).toContain("## Assistant (Triage) · openai-compatible:mock-b");
    expect(markdown).toContain("## Assistant (Triage) · openai-compatible:mock-a");

    const other = await visitor();
    const imported = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: other.cookie, json: file }), undefined);
    expect(imported.status).toBe(201);
    const copy = ((await imported.json()) as ThreadResponse).thread;
    expect(copy.model).toBe("openai-compatible:mock-a");
    expect((await page(copy.id, other.cookie)).messages.map((m) => m.model)).toEqual([undefined, "openai-compatible:mock-b", undefined, "openai-compatible:mock-a"]);

    // A file's model is text to show, never a model to call: one this server does not offer imports as well.
    const foreign = { ...file, messages: file.messages.map((m) => (m.model ? { ...m, model: "someone:else's-model" } : m)) };
    const again = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: other.cookie, json: foreign }), undefined);
    expect(again.status).toBe(201);
    const bad = { ...file, messages: file.messages.map((m) => (m.model ? { ...m, model: "" } : m)) };
    const refused = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: other.cookie, json: bad }), undefined);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("model");
  });
});

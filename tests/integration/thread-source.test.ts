import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import type { ThreadPage, ThreadResponse, ThreadSummary } from "@/lib/protocol/threads";
import { chatTurn, params, request } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import * as list from "@/app/api/threads/route";
import * as fork from "@/app/api/threads/[id]/fork/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import { integrationApp } from "../support/integration";

// Where a conversation came from: each entry point sets it when it makes the
// thread (the page, another client of the chat API, a fork, an import), the
// thread and list routes answer it, the list filters by it, and a file keeps it.
const t = integrationApp();

const msg = (content: string) => ({ id: randomUUID(), content });
const turn = (body: Record<string, unknown>) => chatTurn(chat, body, t.me.cookie);
const thread = async (id: string): Promise<ThreadSummary> =>
  ((await (await threadRoute.GET(request(`/api/threads/${id}`, { cookie: t.me.cookie }), params(id))).json()) as ThreadResponse).thread;
const listed = async (query = "") => {
  const response = await list.GET(request(`/api/threads${query}`, { cookie: t.me.cookie }), undefined);
  return { status: response.status, body: (await response.json()) as ThreadPage & { error?: { code: string; message: string } } };
};

describe("a thread's source", () => {
  it("is the page's for a message that says web, the API's otherwise, with the client's id and metadata, and never changes", async () => {
    const page = await turn({ message: msg("from the page"), source: "web" });
    const client = await turn({ message: msg("from a script"), sourceId: "ticket-42", sourceMetadata: { channel: "email", tags: ["billing"] } });
    expect(await thread(page.threadId!)).toMatchObject({ source: "web", sourceId: null, sourceMetadata: null });
    expect(await thread(client.threadId!)).toMatchObject({ source: "api", sourceId: "ticket-42", sourceMetadata: { channel: "email", tags: ["billing"] } });

    // A later message cannot rewrite it.
    await turn({ threadId: client.threadId, message: msg("and again"), source: "web", sourceId: "other" });
    expect(await thread(client.threadId!)).toMatchObject({ source: "api", sourceId: "ticket-42" });
  });

  it.each([
    [{ source: "fork" }, "source", '"web" or "api"'],
    [{ sourceId: "" }, "sourceId", "must not be empty"],
    [{ sourceId: "x".repeat(201) }, "sourceId", "at most 200 characters"],
    [{ sourceMetadata: ["a list"] }, "sourceMetadata", "must be a JSON object"],
    [{ sourceMetadata: { blob: "x".repeat(5_000) } }, "sourceMetadata", "at most 4096 characters"],
    [{ sourceMetadata: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }, "sourceMetadata", "nest more than 8 deep"],
    [{ sourceMetadata: { nul: "a\u0000b" } }, "sourceMetadata", "U+0000"],
  ])("refuses %j with 400 naming the field, and makes no thread", async (fields, field, rule) => {
    const response = await chat.POST(request("/api/chat", { method: "POST", cookie: t.me.cookie, json: { message: msg("bad source"), ...fields } }), undefined);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.message).toContain(field);
    expect(error.message).toContain(rule);
    const { rows } = await t.pool.query("SELECT 1 FROM threads WHERE owner = $1", [t.me.id]);
    expect(rows).toHaveLength(0);
  });

  it("filters the thread list, with paging, and refuses a source that is not one", async () => {
    const web = await turn({ message: msg("one from the page"), source: "web" });
    const api = [await turn({ message: msg("one from a script") }), await turn({ message: msg("another from a script") })];
    const all = await listed();
    expect(all.body.threads.map((t) => t.source).sort()).toEqual(["api", "api", "web"]);

    const first = await listed("?source=api&limit=1");
    expect(first.body.threads).toHaveLength(1);
    const second = await listed(`?source=api&limit=1&cursor=${first.body.nextCursor}`);
    expect([...first.body.threads, ...second.body.threads].map((t) => t.id).sort()).toEqual(api.map((t) => t.threadId).sort());
    expect(second.body.nextCursor).toBeNull();
    expect((await listed("?source=web")).body.threads.map((t) => t.id)).toEqual([web.threadId]);
    expect((await listed("?source=import")).body.threads).toEqual([]);

    const bad = await listed("?source=mail");
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toContain("source");
  });

  it("of a fork is the thread and message it came from", async () => {
    const { threadId, chunks } = await turn({ message: msg("fork me"), source: "web" });
    const replyId = chunks.find((chunk) => chunk.type === "start")!.messageId!;
    const response = await fork.POST(request(`/api/threads/${threadId}/fork`, { method: "POST", cookie: t.me.cookie, json: { messageId: replyId } }), params(threadId!));
    expect(response.status).toBe(201);
    const { thread: forked } = (await response.json()) as ThreadResponse;
    expect(forked).toMatchObject({ source: "fork", sourceId: threadId, sourceMetadata: { messageId: replyId } });
    expect((await listed("?source=fork")).body.threads.map((t) => t.id)).toEqual([forked.id]);
  });

  it("travels in an export and an import keeps it; a file that does not say is from a file", async () => {
    const { threadId } = await turn({ message: msg("keep where I came from"), sourceId: "crm-7", sourceMetadata: { account: 7 } });
    const exported = (await (await exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie: t.me.cookie }), params(threadId!))).json()) as ThreadExport;
    expect(exported.thread).toMatchObject({ source: "api", sourceId: "crm-7", sourceMetadata: { account: 7 } });

    const importAs = async (file: unknown) => {
      const response = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: t.me.cookie, json: file }), undefined);
      expect(response.status).toBe(201);
      return ((await response.json()) as ThreadResponse).thread;
    };
    expect(await importAs(exported)).toMatchObject({ source: "api", sourceId: "crm-7", sourceMetadata: { account: 7 } });
    const { source: _source, sourceId: _id, sourceMetadata: _metadata, ...older } = exported.thread;
    expect(await importAs({ ...exported, thread: older })).toMatchObject({ source: "import", sourceId: null, sourceMetadata: null });

    const refused = await importRoute.POST(
      request("/api/threads/import", { method: "POST", cookie: t.me.cookie, json: { ...exported, thread: { ...exported.thread, source: "mail" } } }),
      undefined,
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("thread.source");
  });

  it("of a thread the adapter makes without saying is the page's, and one it is told of is kept", async () => {
    const adapter = new PostgresHistoryAdapter(t.pool);
    const plain = await adapter.createThread({ owner: t.me.id });
    const told = await adapter.createThread({ owner: t.me.id, origin: { source: "agentkit", sourceId: "run-1", sourceMetadata: { network: "support" } } });
    // An upsert of a thread that exists keeps where it came from.
    await adapter.createThread({ owner: t.me.id, threadId: told.threadId, origin: { source: "api", sourceId: "other", sourceMetadata: null } });
    const { rows } = await t.pool.query("SELECT id, source, source_id, source_metadata FROM threads WHERE owner = $1 ORDER BY source", [t.me.id]);
    expect(rows).toEqual([
      { id: told.threadId, source: "agentkit", source_id: "run-1", source_metadata: { network: "support" } },
      { id: plain.threadId, source: "web", source_id: null, source_metadata: null },
    ]);
  });
});

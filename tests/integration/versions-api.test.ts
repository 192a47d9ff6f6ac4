import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import type { MessagesPage, SelectedVersion, VersionsPage } from "@/lib/protocol/threads";
import { params, request, visitor } from "../support/api";
import * as versionsRoute from "@/app/api/threads/[id]/versions/route";
import * as messagesRoute from "@/app/api/threads/[id]/messages/route";
import { integrationApp } from "../support/integration";

// The "2 / 3" of a thread's messages over HTTP: GET /api/threads/:id/versions
// reads them, POST switches the active path and answers with the new page.
const t = integrationApp({ modelUrl: "http://127.0.0.1:9/unused" });
const adapter = new PostgresHistoryAdapter(t.pool);

/** u1 a1, then a1 regenerated (a1b): the active path is u1 a1b. */
async function regeneratedThread(owner: string): Promise<string> {
  const { threadId } = await adapter.createThread({ owner });
  const scope = { owner, threadId };
  const answer = (id: string) =>
    adapter.appendResults({ ...scope, reply: { id, role: "assistant", status: "complete", parts: [{ type: "text", text: `answer ${id}`, agentName: "Assistant" }] } });
  await adapter.appendUserMessage({ ...scope, turnId: "turn-u1", message: { id: "u1", role: "user", content: "question u1" } });
  await answer("a1");
  expect(await adapter.versions.branch({ ...scope, messageId: "a1" })).toMatchObject({ branched: true });
  await answer("a1b");
  return threadId;
}

const getVersions = (threadId: string, cookie: string) => versionsRoute.GET(request(`/api/threads/${threadId}/versions`, { cookie }), params(threadId));
const select = (threadId: string, messageId: unknown, cookie: string) =>
  versionsRoute.POST(request(`/api/threads/${threadId}/versions`, { method: "POST", cookie, json: { messageId } }), params(threadId));
async function messagesPage(threadId: string, cookie: string): Promise<MessagesPage> {
  const response = await messagesRoute.GET(request(`/api/threads/${threadId}/messages`, { cookie }), params(threadId));
  expect(response.status).toBe(200);
  return response.json();
}

describe("/api/threads/:id/versions", () => {
  it("reads the versions of the active path, and a thread without any has none", async () => {
    const me = await visitor();
    const threadId = await regeneratedThread(me.id);
    const response = await getVersions(threadId, me.cookie);
    expect(response.status).toBe(200);
    expect((await response.json()) satisfies VersionsPage).toEqual({ versions: [{ messageId: "a1b", versions: ["a1", "a1b"], position: 2 }] });

    const { threadId: plain } = await adapter.createThread({ owner: me.id });
    expect(await (await getVersions(plain, me.cookie)).json()).toEqual({ versions: [] });
  });

  it("selecting a version switches what the messages page returns, and answers with that page and the new positions", async () => {
    const me = await visitor();
    const threadId = await regeneratedThread(me.id);
    expect((await messagesPage(threadId, me.cookie)).messages.map((m) => m.id)).toEqual(["u1", "a1b"]);

    const response = await select(threadId, "a1", me.cookie);
    expect(response.status).toBe(200);
    const body = (await response.json()) as SelectedVersion;
    expect(body.versions).toEqual([{ messageId: "a1", versions: ["a1", "a1b"], position: 1 }]);
    expect(body.messages.map((m) => [m.id, m.parts])).toEqual([
      ["u1", [{ type: "text", text: "question u1" }]],
      ["a1", [{ type: "text", text: "answer a1", agentName: "Assistant" }]],
    ]);
    expect(body.nextCursor).toBeNull();
    // Signed as the messages page signs them: the client sends them back with its copy.
    const page = await messagesPage(threadId, me.cookie);
    expect(page.messages.map((m) => m.id)).toEqual(["u1", "a1"]);
    expect(body.messages.map((m) => m.signature)).toEqual(page.messages.map((m) => m.signature));
    expect(body.messages.every((m) => typeof m.signature === "string")).toBe(true);

    await select(threadId, "a1b", me.cookie);
    expect((await messagesPage(threadId, me.cookie)).messages.map((m) => m.id)).toEqual(["u1", "a1b"]);
  });

  it("is 404 for an unknown message, an unknown thread and another owner's thread, and changes nothing then", async () => {
    const me = await visitor();
    const stranger = await visitor();
    const threadId = await regeneratedThread(me.id);

    const unknownMessage = await select(threadId, "nope", me.cookie);
    expect(unknownMessage.status).toBe(404);
    expect((await unknownMessage.json()).error.code).toBe("not_found:message");
    expect((await select(randomUUID(), "a1", me.cookie)).status).toBe(404);
    expect((await getVersions(randomUUID(), me.cookie)).status).toBe(404);

    const foreignSelect = await select(threadId, "a1", stranger.cookie);
    expect(foreignSelect.status).toBe(404);
    expect((await foreignSelect.json()).error.code).toBe("not_found:thread");
    expect((await getVersions(threadId, stranger.cookie)).status).toBe(404);
    expect((await messagesPage(threadId, me.cookie)).messages.map((m) => m.id)).toEqual(["u1", "a1b"]);
  });

  it("refuses a body without a well-formed message id, naming the field", async () => {
    const me = await visitor();
    const threadId = await regeneratedThread(me.id);
    for (const messageId of [undefined, 42, "has space", ""]) {
      const response = await select(threadId, messageId, me.cookie);
      expect(response.status).toBe(400);
      expect((await response.json()).error.message).toContain("messageId");
    }
  });
});

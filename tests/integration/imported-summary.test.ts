import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { chatTurn, params, request, visitor } from "../support/api";
import { versionedThread } from "../support/versioned-thread";
import * as chat from "@/app/api/chat/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import { integrationApp } from "../support/integration";

// A summary that came with an imported file is anyone's words: the thread
// shows it, but the model reads it as quoted data in a user message, never as
// a system message. Against the real provider code and the mock model server,
// whose requests show what the model was sent.
const SUMMARY = "The user asked for the time in Zürich."; // versionedThread's summary

const t = integrationApp();

type Body = { messages: { role: string; content: unknown }[] };
const text = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));
/** Where the summary's words were in what the model was sent: the role of each message holding them. */
const rolesHoldingSummary = () => (t.mock.requests as Body[]).flatMap((body) => body.messages.filter((m) => text(m.content).includes(SUMMARY)).map((m) => m.role));

describe("an imported summary", () => {
  it("is sent to the model as quoted data in a user message, where the thread's own summary is a system message", async () => {
    const me = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);

    // The thread's own summary, written by this server's compaction: a system message.
    const own = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "and tomorrow?" } }, me.cookie);
    expect(own.response.status).toBe(200);
    expect(rolesHoldingSummary()).toEqual(["system"]);

    // The same thread carried out as a file and in again, by someone else.
    const exported = await exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie: me.cookie }), params(threadId));
    const importer = await visitor();
    const imported = await importRoute.POST(
      request("/api/threads/import", { method: "POST", cookie: importer.cookie, headers: { "content-type": "application/json" }, body: await exported.text() }),
      undefined,
    );
    expect(imported.status).toBe(201);
    const { thread } = await imported.json();

    t.mock.requests.length = 0;
    const turn = await chatTurn(chat, { threadId: thread.id, message: { id: randomUUID(), content: "and tomorrow?" } }, importer.cookie);
    expect(turn.response.status).toBe(200);
    expect(turn.chunks.filter((chunk) => chunk.type === "error")).toEqual([]);
    expect(rolesHoldingSummary()).toEqual(["user"]);
    const [body] = t.mock.requests as Body[];
    const quoted = body.messages.find((m) => text(m.content).includes(SUMMARY))!;
    expect(text(quoted.content)).toContain(`> ${SUMMARY}`);
    expect(text(quoted.content)).toContain("not as instructions");
    // The only system message is the agent's own instructions.
    expect(body.messages.filter((m) => m.role === "system")).toHaveLength(1);
    expect(body.messages[0].role).toBe("system");

    // The thread still shows it as a summary, marked as imported.
    const { rows } = await t.pool.query("SELECT content, data FROM messages WHERE thread_id = $1 AND kind = 'system_event'", [thread.id]);
    expect(rows).toEqual([{ content: SUMMARY, data: expect.objectContaining({ imported: 1, event: "compaction" }) }]);
  });
});

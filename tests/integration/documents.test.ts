import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { chatTurn, params, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as documentsRoute from "@/app/api/threads/[id]/documents/route";
import * as documentRoute from "@/app/api/threads/[id]/documents/[documentId]/route";
import * as documentVersionsRoute from "@/app/api/threads/[id]/documents/[documentId]/versions/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import * as versionsRoute from "@/app/api/threads/[id]/versions/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import * as forkRoute from "@/app/api/threads/[id]/fork/route";
import * as timelineRoute from "@/app/api/threads/[id]/timeline/route";
import type { DocumentVersion, DocumentVersionsPage, ThreadDocument } from "@/lib/protocol/documents";
import { integrationApp } from "../support/integration";

// Documents the agents write and the owner revises, on the offline model as a
// fresh clone runs it: written by a tool call, revised from its latest
// version, edited by the owner as "you", each version kept with the reply it
// belongs with, so a regenerate makes its own and switching versions switches
// the document shown.

const replyIdOf = (chunks: UIMessageChunk[]) => chunks.find((c): c is Extract<UIMessageChunk, { type: "start" }> => c.type === "start")!.messageId!;
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

/** A document as the list gives it, with every version on the path read through GET …/versions, oldest first. */
type ReadDocument = ThreadDocument & { versions: DocumentVersion[] };

/** The thread's documents, each with its versions on the path read page after page. */
async function readDocuments(cookie: string, threadId: string): Promise<ReadDocument[]> {
  const response = await documentsRoute.GET(request(`/api/threads/${threadId}/documents`, { cookie }), params(threadId));
  expect(response.status).toBe(200);
  const { documents } = (await response.json()) as { documents: ThreadDocument[] };
  const read: ReadDocument[] = [];
  for (const document of documents) {
    const older: DocumentVersion[] = [];
    for (let cursor = document.olderCursor; cursor !== null; ) {
      const page = await documentVersionsRoute.GET(
        request(`/api/threads/${threadId}/documents/${document.id}/versions?cursor=${cursor}`, { cookie }),
        { params: Promise.resolve({ id: threadId, documentId: document.id }) },
      );
      expect(page.status).toBe(200);
      const body = (await page.json()) as DocumentVersionsPage;
      older.push(...body.versions);
      cursor = body.nextCursor;
    }
    const versions = [...older.reverse(), document.latest];
    expect(versions).toHaveLength(document.versionCount);
    read.push({ ...document, versions });
  }
  return read;
}

// One app (the offline model) for every test here; each test is a visitor of its own.
const t = integrationApp({ model: "offline" });

describe("documents", () => {

  const documentsOf = readDocuments;
  const edit = (cookie: string, threadId: string, documentId: string, body: unknown) =>
    documentRoute.PUT(request(`/api/threads/${threadId}/documents/${documentId}`, { method: "PUT", cookie, json: body }), {
      params: Promise.resolve({ id: threadId, documentId }),
    });
  const versionsOn = (document: ReadDocument) => document.versions.map((v) => `v${v.version} ${v.author}`);

  it("writes a document when asked, revises its latest version, keeps the owner's edit as theirs, and refuses an edit of a stale version", async () => {
    const me = await visitor();
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: "Write a short plan as a document" } }, me.cookie);
    expect(first.text).toContain("I wrote **Plan** (v1)");
    const threadId = first.threadId!;
    const [plan] = await documentsOf(me.cookie, threadId);
    expect(plan).toMatchObject({ title: "Plan", kind: "markdown" });
    expect(versionsOn(plan)).toEqual(["v1 Researcher"]);
    expect(plan.versions[0].content).toMatch(/^# Plan\n\n1\. /);
    expect(plan.versions[0].messageId).toBe(replyIdOf(first.chunks));

    // The owner's edit first: the agent's revision starts from it.
    const mine = await edit(me.cookie, threadId, plan.id, { content: "# Plan\n\n1. Ship on Friday.", basedOn: 1 });
    expect(mine.status).toBe(200);
    expect(((await mine.json()) as { document: ThreadDocument }).document).toMatchObject({ latest: { version: 2, author: "you" }, versionCount: 2 });
    expect(versionsOn((await documentsOf(me.cookie, threadId))[0])).toEqual(["v1 Researcher", "v2 you"]);
    const stale = await edit(me.cookie, threadId, plan.id, { content: "older", basedOn: 1 });
    expect(stale.status).toBe(409);
    expect((await errorOf(stale)).message).toBe("The document changed meanwhile: version 2 is the latest now. Reload it and edit that one.");

    const revised = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "Revise the plan: add a budget line" } }, me.cookie);
    expect(revised.text).toContain("I revised **Plan** (v3)");
    const [after] = await documentsOf(me.cookie, threadId);
    expect(versionsOn(after)).toEqual(["v1 Researcher", "v2 you", "v3 Researcher"]);
    expect(after.versions[2].content).toBe("# Plan\n\n1. Ship on Friday.\n\n_Revised: Revise the plan: add a budget line_");

    // The timeline tells each as an event, after the message it belongs with (the owner's edit after the reply it was made on).
    const timeline = (await (await timelineRoute.GET(request(`/api/threads/${threadId}/timeline`, { cookie: me.cookie }), params(threadId))).json()) as {
      parts: { type: string; messageId: string; text?: string }[];
    };
    const events = timeline.parts.filter((entry) => entry.type === "document-event");
    expect(events.map((e) => e.text)).toEqual(["Researcher wrote Plan (v1)", "You revised Plan (v2)", "Researcher revised Plan (v3)"]);
    expect(events.map((e) => e.messageId)).toEqual([replyIdOf(first.chunks), replyIdOf(first.chunks), replyIdOf(revised.chunks)]);
    const lastOfFirstReply = timeline.parts.findLastIndex((e) => e.messageId === replyIdOf(first.chunks) && e.type !== "document-event");
    expect(timeline.parts.findIndex((e) => e.type === "document-event")).toBe(lastOfFirstReply + 1);
  });

  it("gives a regenerated reply its own versions, and switching back to the first reply shows the document as it had it", async () => {
    const me = await visitor();
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: "Write a short checklist as a document" } }, me.cookie);
    const threadId = first.threadId!;
    const ask = { id: randomUUID(), content: "Update the document with one more step" };
    const revised = await chatTurn(chat, { threadId, message: ask }, me.cookie);
    const firstRevision = replyIdOf(revised.chunks);
    expect(versionsOn((await documentsOf(me.cookie, threadId))[0])).toEqual(["v1 Researcher", "v2 Researcher"]);

    const again = await chatTurn(chat, { threadId, message: ask, replaces: firstRevision }, me.cookie);
    expect(again.response.status).toBe(200);
    expect(again.text).toContain("(v3)");
    // The regenerated reply's version shows; the one it replaced is off the path.
    expect(versionsOn((await documentsOf(me.cookie, threadId))[0])).toEqual(["v1 Researcher", "v3 Researcher"]);

    const back = await versionsRoute.POST(request(`/api/threads/${threadId}/versions`, { method: "POST", cookie: me.cookie, json: { messageId: firstRevision } }), params(threadId));
    expect(back.status).toBe(200);
    expect(versionsOn((await documentsOf(me.cookie, threadId))[0])).toEqual(["v1 Researcher", "v2 Researcher"]);
  });

  it("writes once per tool call however often the call runs, refuses bad edits, and goes with its thread", async () => {
    const me = await visitor();
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: "Draft a brief outline as a document" } }, me.cookie);
    const threadId = first.threadId!;
    const [outline] = await documentsOf(me.cookie, threadId);
    const store = t.app.documents();
    const by = { author: "Researcher", messageId: outline.versions[0].messageId, toolCallId: "call_retry" };
    const one = await store.revise(me.id, threadId, outline.id, "retried", by);
    const two = await store.revise(me.id, threadId, outline.id, "retried", by);
    expect(two).toEqual(one);
    expect(versionsOn((await documentsOf(me.cookie, threadId))[0])).toEqual(["v1 Researcher", "v2 Researcher"]);

    expect((await edit(me.cookie, threadId, outline.id, { content: "x" })).status).toBe(400);
    expect((await edit(me.cookie, threadId, outline.id, { content: "a\u0000b", basedOn: 2 })).status).toBe(400);
    expect((await edit(me.cookie, threadId, "not-a-uuid", { content: "x", basedOn: 1 })).status).toBe(400);
    expect((await edit(me.cookie, threadId, randomUUID(), { content: "x", basedOn: 1 })).status).toBe(404);
    const other = await visitor();
    expect((await edit(other.cookie, threadId, outline.id, { content: "mine now", basedOn: 2 })).status).toBe(404);
    expect((await documentsRoute.GET(request(`/api/threads/${threadId}/documents`, { cookie: other.cookie }), params(threadId))).status).toBe(404);

    expect((await threadRoute.DELETE(request(`/api/threads/${threadId}`, { method: "DELETE", cookie: me.cookie }), params(threadId))).status).toBe(204);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM documents WHERE id = $1", [outline.id]);
    expect(rows[0].n).toBe(0);
  });
});

describe("documents in export and import", () => {
  it("travel in the JSON export with every version, show their latest in the Markdown, and come back with an import under new ids, each version with its reply", async () => {
    const me = await visitor();
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: "Write a short plan as a document" } }, me.cookie);
    const threadId = first.threadId!;
    await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "Revise the plan with a date" } }, me.cookie);
    const json = await exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie: me.cookie }), params(threadId));
    const file = (await json.json()) as { documents: { title: string; versions: { version: number; author: string; messageId: string }[] }[]; messages: { id: string }[] };
    expect(file.documents.map((d) => d.title)).toEqual(["Plan"]);
    expect(file.documents[0].versions.map((v) => `v${v.version} ${v.author}`)).toEqual(["v1 Researcher", "v2 Researcher"]);
    const markdown = await (await exportRoute.GET(request(`/api/threads/${threadId}/export?format=markdown`, { cookie: me.cookie }), params(threadId))).text();
    expect(markdown).toMatch(/## Documents\n\n### Plan \(v2, by Researcher\)\n\n```markdown\n# Plan\n/);

    const other = await visitor();
    const imported = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: other.cookie, json: file }), undefined);
    expect(imported.status).toBe(201);
    const { thread } = (await imported.json()) as { thread: { id: string } };
    const [plan] = await readDocuments(other.cookie, thread.id);
    expect(plan.versions.map((v) => `v${v.version} ${v.author}`)).toEqual(["v1 Researcher", "v2 Researcher"]);
    expect(plan.versions.every((v) => !file.messages.some((m) => m.id === v.messageId))).toBe(true);
    expect(plan.id).not.toBe((file.documents[0] as unknown as { id: string }).id);

    // A document naming a message the file lacks is refused, and nothing stored.
    const broken = { ...file, documents: [{ ...file.documents[0], versions: [{ ...file.documents[0].versions[0], messageId: "nope" }] }] };
    const refused = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: other.cookie, json: broken }), undefined);
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).message).toBe("documents.0.versions.0.messageId: must be the id of a message of the file, which come before the documents");
  });
});

describe("documents in a fork", () => {
  it("carries the documents as the copied path has them, renumbered from 1, each version with its copied reply", async () => {
    const me = await visitor();
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: "Write a short plan as a document" } }, me.cookie);
    const threadId = first.threadId!;
    const second = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "Revise the plan with a date" } }, me.cookie);
    await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "Revise the plan once more" } }, me.cookie);
    const read = (id: string) => readDocuments(me.cookie, id);
    const [source] = await read(threadId);
    expect(source.versions.map((v) => v.version)).toEqual([1, 2, 3]);

    // Forked at the second reply: the third revision is not on the copied path.
    const response = await forkRoute.POST(request(`/api/threads/${threadId}/fork`, { method: "POST", cookie: me.cookie, json: { messageId: replyIdOf(second.chunks) } }), params(threadId));
    expect(response.status).toBe(201);
    const { thread } = (await response.json()) as { thread: { id: string } };
    const forked = await read(thread.id);
    expect(forked).toHaveLength(1);
    expect(forked[0].id).not.toBe(source.id);
    expect(forked[0].versions.map((v) => `v${v.version} ${v.author}`)).toEqual(["v1 Researcher", "v2 Researcher"]);
    expect(forked[0].versions.map((v) => v.content)).toEqual(source.versions.slice(0, 2).map((v) => v.content));
    expect(forked[0].versions.every((v) => v.messageId !== replyIdOf(first.chunks) && v.messageId !== replyIdOf(second.chunks))).toBe(true);
  });
});

import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { limits } from "@/lib/limits";
import type { Part } from "@threadline/history/parts";
import { threadExportSchema, type ThreadExport } from "@/lib/protocol/thread-export";
import { threadExport } from "@/lib/threads/export";
import { params, request, visitor } from "../support/api";
import { databaseTargets, onDatabase } from "../support/db-targets";
import { TOOL_REPLY, versionedThread } from "../support/versioned-thread";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import { integrationApp } from "../support/integration";

/**
 * The thread a file describes with its ids and the times of the export and
 * of the thread row left out: each message's parent by its place in the file.
 * A summary's `imported` mark is left out too: an import adds it (and the
 * tests that compare say so).
 */
const unmarked = (part: Part): Part => (part.type === "system-event" ? (({ imported: _imported, ...rest }) => rest)(part) : part);

function comparable(file: ThreadExport) {
  const place = new Map(file.messages.map((m, i) => [m.id, i]));
  return {
    title: file.thread.title,
    messages: file.messages.map(({ id: _id, parentId, parts, ...rest }) => ({ ...rest, parts: parts.map(unmarked), parent: parentId === null ? null : place.get(parentId) })),
  };
}

// Export → import → export, through the repository, on both databases.
describe.each(databaseTargets())("a thread exported and imported, on the $name", (target) => {
  const db = onDatabase(target);

  it("comes back the same thread: every version, part, choice, seq and time, under new ids, its active path recomputed", async () => {
    const owner = `owner-${randomUUID()}`;
    const { threadId, activePath } = await versionedThread(db.adapter, owner);
    const exported = threadExport(await db.repo.versionTree(owner, threadId), new Date());
    // Through JSON and the import's own check, as a file travels.
    const file = threadExportSchema.parse(JSON.parse(JSON.stringify(exported)));

    const importer = `owner-${randomUUID()}`;
    const imported = await db.repo.import(importer, file);
    expect(imported.id).not.toBe(threadId);
    expect(imported).toMatchObject({ title: "What time is it in Zürich?", messageCount: 6 });
    const again = threadExport(await db.repo.versionTree(importer, imported.id), new Date());
    expect(comparable(again)).toEqual(comparable(exported));
    expect(again.thread.createdAt).toBe(exported.thread.createdAt);
    expect(again.messages.map((m) => m.id).filter((id) => exported.messages.some((e) => e.id === id))).toEqual([]);

    // The reads follow the chosen path, the summary is the thread's latest, and versions are where they were.
    const source = await db.repo.messages(owner, threadId);
    expect(source.map((m) => m.id)).toEqual(activePath);
    const copy = await db.repo.messages(importer, imported.id);
    // Ids aside, and parents as places on the path: the first message starts it, each other follows the one before.
    const placed = (messages: typeof source) =>
      messages.map(({ id: _id, parentId, parts, ...rest }) => ({
        ...rest,
        parts: parts.map(unmarked),
        follows: parentId === null ? null : messages.findIndex((m) => m.id === parentId),
      }));
    expect(placed(copy)).toEqual(placed(source));
    expect(copy[2].parts[0]).toMatchObject({ type: "system-event", throughSeq: copy[1].seq + TOOL_REPLY.length - 1 });
    // The summary came from a file: marked, so the model reads it as quoted data (see the model-request test below).
    expect(source[2].parts[0]).not.toHaveProperty("imported");
    expect(copy[2].parts[0]).toMatchObject({ imported: true });
    expect((await db.adapter.summaries.latest({ owner: importer, threadId: imported.id }))?.id).toBe(copy[2].id);
    const positions = (versions: { position: number; versions: string[] }[]) => versions.map((v) => [v.position, v.versions.length]);
    expect(positions(await db.adapter.versions.versions({ owner: importer, threadId: imported.id }))).toEqual(
      positions(await db.adapter.versions.versions({ owner, threadId })),
    );
    // The imported thread goes on like any other, and its versions switch like any other.
    expect(await db.adapter.versions.select({ owner: importer, threadId: imported.id, messageId: again.messages.find((m) => m.parts[0].type === "text" && m.parts[0].text === "What time is it in Paris?")!.id })).toBe(true);
    expect((await db.repo.messages(importer, imported.id)).map((m) => m.parts)).toEqual([
      [{ type: "text", text: "What time is it in Paris?" }],
      [{ type: "text", text: "Noon in Paris.", agentName: "Triage" }],
    ]);
    // The model's title never replaces an imported one.
    expect((await db.pool.query("SELECT title_source FROM threads WHERE id = $1", [imported.id])).rows[0].title_source).toBe("user");
  });

  it("leaves nothing behind when the database refuses a value of the file", async () => {
    const owner = `owner-${randomUUID()}`;
    const { threadId } = await versionedThread(db.adapter, owner);
    const file = threadExportSchema.parse(JSON.parse(JSON.stringify(threadExport(await db.repo.versionTree(owner, threadId), new Date()))));
    // The last message fails, after the thread row and every earlier row went in.
    file.messages.at(-1)!.createdAt = "0000-01-01T00:00:00Z";
    const importer = `owner-${randomUUID()}`;
    await expect(db.repo.import(importer, file)).rejects.toMatchObject({ code: "bad_request:import", message: expect.stringContaining("Nothing was stored") });
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM threads WHERE owner = $1", [importer]);
    expect(rows[0].n).toBe(0);
  });
});

describe("GET /api/threads/:id/export and POST /api/threads/import", () => {
  // The malformed files below are more imports than one identity may make in an hour (rate limits have their own tests).
  const t = integrationApp({ model: "offline", settings: { RATE_LIMIT_IMPORTS_PER_HOUR: "0" } });

  const exportOf = (threadId: string, cookie: string, format?: string) =>
    exportRoute.GET(request(`/api/threads/${threadId}/export${format === undefined ? "" : `?format=${format}`}`, { cookie }), params(threadId));
  const importAs = (cookie: string, init: { json?: unknown; body?: string }) =>
    importRoute.POST(request("/api/threads/import", { method: "POST", cookie, headers: { "content-type": "application/json" }, ...init }), undefined);

  /** A new visitor's versioned thread exported as `format`: the download, its type and its file name as given. */
  async function downloaded(format: string, contentType: string, fileName: string) {
    const me = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);
    const response = await exportOf(threadId, me.cookie, format);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(contentType);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${fileName}"`);
    return response;
  }

  /** What an owner holds: threads and part rows. */
  async function holdings(owner: string) {
    const { rows } = await t.pool.query(
      "SELECT count(DISTINCT t.id)::int AS threads, count(m.id)::int AS rows FROM threads t LEFT JOIN messages m ON m.thread_id = t.id WHERE t.owner = $1",
      [owner],
    );
    return rows[0];
  }

  it("exports JSON with every version and every part, as a download named after the title", async () => {
    const response = await downloaded("json", "application/json; charset=utf-8", "What time is it in Zurich.json");
    const file = (await response.json()) as ThreadExport;
    expect(file).toMatchObject({ format: "threadline.thread", version: 1, thread: { title: "What time is it in Zürich?" } });
    expect(file.messages.map((m) => m.id)).toEqual(["u1", "a1", "summary-1", "u2", "a2", "a2b", "u3", "a3", "u1b", "a1b"]);
    expect(file.messages.map((m) => m.seq)).toEqual([...file.messages.map((m) => m.seq)].sort((a, b) => a - b));
    expect(file.messages.find((m) => m.id === "a1")).toMatchObject({ parentId: "u1", role: "assistant", chosen: true, parts: TOOL_REPLY });
    expect(file.messages.find((m) => m.id === "a2")).toMatchObject({ parentId: "u2", chosen: false, status: "stopped" });
    expect(file.messages.find((m) => m.id === "a2b")).toMatchObject({ parentId: "u2", chosen: true });
    expect(file.messages.find((m) => m.id === "u1b")).toMatchObject({ parentId: null, chosen: false });
    expect(file.messages.find((m) => m.id === "a1b")).toMatchObject({ parentId: "u1b", chosen: true });
    expect(file.messages.find((m) => m.id === "u3")?.parts).toEqual([{ type: "text", text: "Thanks\u0000!" }]);
    expect(file.messages.find((m) => m.id === "summary-1")).toMatchObject({ role: "system", parts: [{ type: "system-event", event: "compaction" }] });
    expect(threadExportSchema.safeParse(file).success).toBe(true);
  });

  it("exports markdown of the active path, for a person to read", async () => {
    const response = await downloaded("markdown", "text/markdown; charset=utf-8", "What time is it in Zurich.md");
    const markdown = await response.text();
    expect(markdown.startsWith("# What time is it in Zürich?\n")).toBe(true);
    for (const said of ["What time is it in Zürich?", "It is noon in Zürich.", "And the weather?", "Rainy all day.", "You're welcome.", "The user asked for the time in Zürich."]) {
      expect(markdown).toContain(said);
    }
    expect(markdown).toContain('- Tool `current_time` `{"city":"Zurich"}` → `{"time":"12:00","zone":"Europe/Zurich"}`');
    expect(markdown).toContain("- Tool `calculate` `{\"expression\":\"1/0\"}` → error: `Division by zero`");
    // Versions off the path are not in the transcript, nor is the reasoning.
    for (const hidden of ["Sunny, I thi", "Paris", "Look up the time."]) expect(markdown).not.toContain(hidden);
  });

  it("refuses a missing or unknown format naming the allowed ones, and another owner's thread as a missing one", async () => {
    const me = await visitor();
    const stranger = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);
    for (const format of [undefined, "pdf", ""]) {
      const response = await exportOf(threadId, me.cookie, format);
      expect(response.status, String(format)).toBe(400);
      expect((await response.json()).error).toEqual({ code: "bad_request:format", message: 'format: must be one of "json", "markdown".' });
    }
    const theirs = await exportOf(threadId, stranger.cookie, "json");
    const missing = await exportOf(randomUUID(), stranger.cookie, "json");
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual(await missing.json());
  });

  it("imports an exported file as a new thread of the importer's, and exports it again the same", async () => {
    const me = await visitor();
    const other = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);
    const first = (await (await exportOf(threadId, me.cookie, "json")).json()) as ThreadExport;

    const response = await importAs(other.cookie, { json: first });
    expect(response.status).toBe(201);
    const { thread } = await response.json();
    expect(thread).toMatchObject({ title: "What time is it in Zürich?", messageCount: 6 });
    expect(await holdings(other.id)).toEqual({ threads: 1, rows: first.messages.reduce((n, m) => n + m.parts.length, 0) });
    // The importer's, not the exporter's.
    expect((await exportOf(thread.id, me.cookie, "json")).status).toBe(404);
    const second = (await (await exportOf(thread.id, other.cookie, "json")).json()) as ThreadExport;
    expect(comparable(second)).toEqual(comparable(first));
  });

  it("refuses a malformed file with a message naming what is wrong, and stores nothing", async () => {
    const me = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);
    const good = (await (await exportOf(threadId, me.cookie, "json")).json()) as ThreadExport;
    const importer = await visitor();
    const edited = (change: (file: ThreadExport) => void) => {
      const file = structuredClone(good);
      change(file);
      return { json: file };
    };
    const text = (i: number) => ({ id: `m${i}`, parentId: i === 0 ? null : `m${i - 1}`, role: "user", parts: [{ type: "text", text: "hi" }], status: "complete", createdAt: good.exportedAt, chosen: true, seq: i + 1 });

    const cases: [string, { json?: unknown; body?: string }, string | RegExp][] = [
      ["not JSON", { body: "{ this is not json" }, "not valid JSON"],
      ["not an object", { json: [1, 2] }, "must be a JSON object"],
      ["another kind of file", { json: { hello: "world" } }, 'format: must be "threadline.thread": this is not a Threadline thread export'],
      ["an empty body", { body: "" }, "The file is empty"],
      ["two documents", { body: `${JSON.stringify(good)} {}` }, "not valid JSON"],
      ["messages that are not a list", edited((f) => void ((f as { messages: unknown }).messages = { 0: f.messages[0] })), "messages: must be an array of messages"],
      ["another format", edited((f) => void ((f as { format: string }).format = "chatgpt.conversation")), 'format: must be "threadline.thread"'],
      ["another version", edited((f) => void ((f as { version: number }).version = 2)), "version: must be 1"],
      ["a parent that is not an earlier message", edited((f) => void (f.messages[1].parentId = "a3")), 'messages.1.parentId: "a3" is not the id of an earlier message'],
      ["an unknown parent", edited((f) => void (f.messages[1].parentId = "nobody")), 'messages.1.parentId: "nobody" is not the id'],
      ["a duplicate id", edited((f) => void (f.messages[3].id = "a1")), 'messages.3.id: "a1" is the id of an earlier message'],
      ["a system event in an assistant message", edited((f) => void f.messages[1].parts.push(f.messages[2].parts[0])), "messages.1.parts.7: a system-event part belongs only in a system message"],
      ["a system message without its event", edited((f) => void (f.messages[2].parts = [{ type: "text", text: "hello" }])), "messages.2.parts: a system message must hold exactly one system-event part"],
      ["a tool call in a user message", edited((f) => void f.messages[0].parts.push(TOOL_REPLY[2])), "messages.0.parts.1: a user message holds its text, then files only"],
      ["two chosen versions", edited((f) => void (f.messages[4].chosen = true)), "messages.5.chosen: another version of this message"],
      ["seqs out of order", edited((f) => void (f.messages[3].seq = f.messages[2].seq)), /^messages\.3\.seq: must be at least \d+/],
      ["a summary of nothing before it", edited((f) => void ((f.messages[2].parts[0] as { throughSeq: number }).throughSeq = 999)), "messages.2.parts.0.throughSeq"],
      ["a part of no known type", edited((f) => void (f.messages[0].parts = [{ type: "image", url: "x" } as never])), "messages.0.parts.0"],
      ["no chosen first message", edited((f) => void (f.messages[0].chosen = false)), "messages: one first message (parentId null) must be chosen"],
      ["no messages", edited((f) => void (f.messages = [])), "messages: must hold at least one message"],
      ["a title on two lines", edited((f) => void (f.thread.title = "one\ntwo")), "thread.title: must be a single line"],
      ["too many parts in a message", edited((f) => void (f.messages[0].parts = Array.from({ length: limits.maxPartsPerMessage + 1 }, () => ({ type: "text", text: "x" })))), `messages.0.parts: must hold at most ${limits.maxPartsPerMessage} parts`],
    ];
    for (const [what, init, message] of cases) {
      const response = await importAs(importer.cookie, init);
      expect(response.status, what).toBe(400);
      const { error } = await response.json();
      if (typeof message === "string") expect(error.message, what).toContain(message);
      else expect(error.message, what).toMatch(message);
    }
    expect(await holdings(importer.id)).toEqual({ threads: 0, rows: 0 });
    // The same file, whole, goes in, and so does one whose keys come in another order.
    expect((await importAs(importer.cookie, { json: good })).status).toBe(201);
    const { messages, ...header } = good;
    expect((await importAs(importer.cookie, { json: { messages, ...header } })).status).toBe(201);
  });

  it("refuses a file larger than the import limit with 413, storing nothing", async () => {
    const importer = await visitor();
    const me = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);
    const file = (await (await exportOf(threadId, me.cookie, "json")).json()) as ThreadExport;
    // Said by its Content-Length (tests/integration/thread-file-limits.test.ts sends one that says nothing).
    const response = await importRoute.POST(
      request("/api/threads/import", { method: "POST", cookie: importer.cookie, json: file, headers: { "content-length": String(limits.maxThreadFileBytes + 1) } }),
      undefined,
    );
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe("payload_too_large:body");
    expect(await holdings(importer.id)).toEqual({ threads: 0, rows: 0 });
    // Above the chat's own body limit but within the import's: taken.
    file.messages[0].parts = [{ type: "text", text: "x".repeat(limits.maxBodyBytes) }];
    expect((await importAs(importer.cookie, { json: file })).status).toBe(201);
  });
});

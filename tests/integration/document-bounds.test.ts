import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chatTurn, params, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as documentsRoute from "@/app/api/threads/[id]/documents/route";
import * as documentRoute from "@/app/api/threads/[id]/documents/[documentId]/route";
import * as versionsRoute from "@/app/api/threads/[id]/documents/[documentId]/versions/route";
import { messagesCursor } from "@/lib/protocol/cursors";
import type { DocumentVersionsPage, ThreadDocument } from "@/lib/protocol/documents";
import { integrationApp } from "../support/integration";

// What one document may cost: the list carries each document's latest
// version only (the older ones a page at a time), the owner's edits are
// rate-limited, a document's versions together are capped (the owner gets a
// 413, an agent's call an error it reads), and of several edits made over one
// version exactly one is stored, however they race. On the offline model.

const EDITS_PER_MINUTE = 12;
const t = integrationApp({ model: "offline", settings: { RATE_LIMIT_DOCUMENT_EDITS_PER_MINUTE: String(EDITS_PER_MINUTE), DOCUMENT_MAX_STORED_MB: "1", DOCUMENTS_PER_THREAD: "2" } });

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

/** A thread of a new visitor's with one document the offline model wrote (v1). */
async function withDocument() {
  const me = await visitor();
  const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "Write a short plan as a document" } }, me.cookie);
  const threadId = turn.threadId!;
  const [document] = await list(me.cookie, threadId);
  return { me, threadId, documentId: document.id };
}

async function list(cookie: string, threadId: string): Promise<ThreadDocument[]> {
  const response = await documentsRoute.GET(request(`/api/threads/${threadId}/documents`, { cookie }), params(threadId));
  expect(response.status).toBe(200);
  return ((await response.json()) as { documents: ThreadDocument[] }).documents;
}

const edit = (cookie: string, threadId: string, documentId: string, content: string, basedOn: number) =>
  documentRoute.PUT(request(`/api/threads/${threadId}/documents/${documentId}`, { method: "PUT", cookie, json: { content, basedOn } }), {
    params: Promise.resolve({ id: threadId, documentId }),
  });

const versions = (cookie: string, threadId: string, documentId: string, query = "") =>
  versionsRoute.GET(request(`/api/threads/${threadId}/documents/${documentId}/versions${query}`, { cookie }), {
    params: Promise.resolve({ id: threadId, documentId }),
  });

describe("a document's versions", () => {
  it("are listed by the latest alone, with their count, and read back a page at a time, newest first", async () => {
    const { me, threadId, documentId } = await withDocument();
    for (let version = 1; version <= 4; version++) expect((await edit(me.cookie, threadId, documentId, `draft ${version + 1}`, version)).status).toBe(200);

    const listed = await documentsRoute.GET(request(`/api/threads/${threadId}/documents`, { cookie: me.cookie }), params(threadId));
    const text = await listed.text();
    // The older versions' text is not in the list.
    expect(text).not.toContain("draft 2");
    const [document] = (JSON.parse(text) as { documents: ThreadDocument[] }).documents;
    expect(document).toMatchObject({ id: documentId, title: "Plan", versionCount: 5, latest: { version: 5, content: "draft 5", author: "you" } });
    expect(document).not.toHaveProperty("versions");

    const first = await versions(me.cookie, threadId, documentId, `?cursor=${document.olderCursor}&limit=2`);
    expect(first.status).toBe(200);
    const one = (await first.json()) as DocumentVersionsPage;
    expect(one.versions.map((v) => `v${v.version} ${v.content}`)).toEqual(["v4 draft 4", "v3 draft 3"]);
    const two = (await (await versions(me.cookie, threadId, documentId, `?cursor=${one.nextCursor}&limit=2`)).json()) as DocumentVersionsPage;
    expect(two.versions.map((v) => `v${v.version} ${v.author}`)).toEqual(["v2 you", "v1 Researcher"]);
    expect(two.nextCursor).toBeNull();
    // With no cursor, from the latest.
    const all = (await (await versions(me.cookie, threadId, documentId)).json()) as DocumentVersionsPage;
    expect(all.versions.map((v) => v.version)).toEqual([5, 4, 3, 2, 1]);
    expect(all.nextCursor).toBeNull();
  });

  it("refuse another listing's cursor, a page too large, another owner and an unknown document", async () => {
    const { me, threadId, documentId } = await withDocument();
    const foreign = await versions(me.cookie, threadId, documentId, `?cursor=${messagesCursor.encode(3)}`);
    expect(foreign.status).toBe(400);
    expect((await errorOf(foreign)).message).toBe("cursor: is not a cursor this server handed out");
    expect((await versions(me.cookie, threadId, documentId, "?limit=11")).status).toBe(400);
    expect((await versions(me.cookie, threadId, "not-a-uuid")).status).toBe(400);
    expect((await versions(me.cookie, threadId, randomUUID())).status).toBe(404);
    expect((await versions((await visitor()).cookie, threadId, documentId)).status).toBe(404);
  });
});

describe("the owner's edits", () => {
  it("of one version, sent together, store exactly one: the others are told it changed (409)", async () => {
    const { me, threadId, documentId } = await withDocument();
    for (const basedOn of [1, 2]) {
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => edit(me.cookie, threadId, documentId, `over v${basedOn}, edit ${i}`, basedOn)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
      for (const refused of answers.filter((a) => a.status === 409)) {
        expect(await errorOf(refused)).toEqual({
          code: "conflict:document_changed",
          message: `The document changed meanwhile: version ${basedOn + 1} is the latest now. Reload it and edit that one.`,
        });
      }
    }
    const { rows } = await t.pool.query("SELECT version, author FROM document_versions WHERE document_id = $1 ORDER BY version", [documentId]);
    expect(rows).toEqual([
      { version: 1, author: "Researcher" },
      { version: 2, author: "you" },
      { version: 3, author: "you" },
    ]);
  });

  it("are rate-limited per identity: past the limit a 429 with Retry-After, and nothing stored", async () => {
    const { me, threadId, documentId } = await withDocument();
    for (let version = 1; version <= EDITS_PER_MINUTE; version++) {
      expect((await edit(me.cookie, threadId, documentId, `edit ${version}`, version)).status).toBe(200);
    }
    const refused = await edit(me.cookie, threadId, documentId, "one too many", EDITS_PER_MINUTE + 1);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = await errorOf(refused);
    expect(error.code).toBe("rate_limited:documentEditPerIdentity");
    expect(error.message).toMatch(/^You are saving document edits faster than this server allows\. Try again in \d+ seconds?\.$/);
    expect((await list(me.cookie, threadId))[0]).toMatchObject({ versionCount: EDITS_PER_MINUTE + 1, latest: { content: `edit ${EDITS_PER_MINUTE}` } });
    // Another identity's edits are its own count.
    const other = await withDocument();
    expect((await edit(other.me.cookie, other.threadId, other.documentId, "mine", 1)).status).toBe(200);
  });
});

describe("a document's size, all versions together", () => {
  it("is bounded: the edit past it is a 413 that says so, and an agent's revision past it is a failed call the model reads", async () => {
    const { me, threadId, documentId } = await withDocument();
    const big = (n: number) => `${n}`.padEnd(199_000, "x");
    // 1 MB: five versions of 199,000 characters and the first one fit; a sixth does not.
    for (let version = 1; version <= 5; version++) expect((await edit(me.cookie, threadId, documentId, big(version), version)).status).toBe(200);
    const refused = await edit(me.cookie, threadId, documentId, big(6), 6);
    expect(refused.status).toBe(413);
    const error = await errorOf(refused);
    expect(error.code).toBe("payload_too_large:document_full");
    expect(error.message).toMatch(/^The document is full: its versions together may hold at most 1 MB of text, and this version would take it past that \(they hold 0\.9 MB\)\. Start a new document to go on\.$/);

    // The offline model reads the latest version and writes it back with a line added: past the bound too.
    const revised = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "Revise the plan: add a line about the budget" } }, me.cookie);
    expect(revised.response.status).toBe(200);
    expect(revised.text).toContain("- `update_document` did not work: The document is full: its versions together may hold at most 1 MB of text");
    expect((await list(me.cookie, threadId))[0]).toMatchObject({ versionCount: 6, latest: { version: 6 } });

    // A small edit still fits.
    expect((await edit(me.cookie, threadId, documentId, "short again", 6)).status).toBe(200);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n, sum(octet_length(content))::int AS bytes FROM document_versions WHERE document_id = $1", [documentId]);
    expect(rows[0].n).toBe(7);
    expect(rows[0].bytes).toBeLessThanOrEqual(1024 * 1024);
  });
});

describe("a thread's documents", () => {
  it("are at most DOCUMENTS_PER_THREAD: the agent's next create_document fails with the reason, and nothing is stored", async () => {
    const { me, threadId } = await withDocument();
    const second = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "Write a short plan as a document" } }, me.cookie);
    expect(second.response.status).toBe(200);
    expect(await list(me.cookie, threadId)).toHaveLength(2);
    const third = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "Write a short plan as a document" } }, me.cookie);
    expect(third.response.status).toBe(200);
    expect(third.text).toContain("- `create_document` did not work: This conversation already holds 2 documents, the most one may.");
    expect(await list(me.cookie, threadId)).toHaveLength(2);
  });
});

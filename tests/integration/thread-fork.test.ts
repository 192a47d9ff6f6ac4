import { randomUUID } from "node:crypto";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { AppError } from "@threadline/history/errors";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { limits } from "@/lib/limits";
import { chatTurn, params, request, visitor } from "../support/api";
import { databaseTargets, onDatabase } from "../support/db-targets";
import { versionedThread } from "../support/versioned-thread";
import * as forkRoute from "@/app/api/threads/[id]/fork/route";
import * as thread from "@/app/api/threads/[id]/route";
import * as chat from "@/app/api/chat/route";
import { integrationApp } from "../support/integration";

/** Every row of a thread, every column that a fork could disturb. */
async function rowsOf(pool: pg.Pool, threadId: string) {
  const { rows } = await pool.query(
    `SELECT seq::int AS seq, message_id, part_index, kind, agent_name, content, content_escaped, status, data, created_at, parent_message_id, chosen, active
       FROM messages WHERE thread_id = $1 ORDER BY seq`,
    [threadId],
  );
  return rows;
}

async function threadRow(pool: pg.Pool, threadId: string) {
  const { rows } = await pool.query("SELECT owner, title, title_source, next_seq::int AS next_seq, message_count, summary_seq::int AS summary_seq FROM threads WHERE id = $1", [threadId]);
  return rows[0];
}

// A fork is a new thread holding the source's active path up to a message,
// every message under a new id; the source stays as it was.
describe.each(databaseTargets())("forking a thread, on the $name", (target) => {
  const db = onDatabase(target);

  it("at a middle message holds exactly the active path up to it, under new ids, titled \"(fork)\"; the source is unchanged", async () => {
    const owner = `owner-${randomUUID()}`;
    const { threadId } = await versionedThread(db.adapter, owner);
    const sourceRows = await rowsOf(db.pool, threadId);
    const sourceThread = await threadRow(db.pool, threadId);

    const fork = await db.repo.fork(owner, threadId, "a2b");

    expect(fork.id).not.toBe(threadId);
    expect(fork.title).toBe("What time is it in Zürich? (fork)");
    expect(fork.messageCount).toBe(4); // u1 a1 u2 a2b; the summary is not something anyone said
    // The source: not one row or counter moved.
    expect(await rowsOf(db.pool, threadId)).toEqual(sourceRows);
    expect(await threadRow(db.pool, threadId)).toEqual(sourceThread);

    // The fork: the source's path to a2b, part for part, each message under a new id.
    const path = sourceRows.filter((r) => r.active && r.seq <= sourceRows.find((s) => s.message_id === "a2b")!.seq);
    const forked = await rowsOf(db.pool, fork.id);
    expect(forked).toHaveLength(path.length);
    const newId = new Map<string, string>();
    forked.forEach((row, i) => {
      const { message_id, parent_message_id, ...same } = row;
      const { message_id: oldId, parent_message_id: oldParent, ...was } = path[i];
      expect(same).toEqual({ ...was, chosen: true, active: true });
      expect(message_id).not.toBe(oldId);
      if (newId.has(oldId)) expect(newId.get(oldId)).toBe(message_id);
      newId.set(oldId, message_id);
      expect(parent_message_id).toBe(oldParent === null ? null : newId.get(oldParent));
    });
    expect([...newId.keys()]).toEqual(["u1", "a1", "summary-1", "u2", "a2b"]);
    expect(new Set(newId.values()).size).toBe(5);
    expect(await threadRow(db.pool, fork.id)).toEqual({
      owner,
      title: "What time is it in Zürich? (fork)",
      title_source: "user",
      next_seq: forked.at(-1)!.seq + 1,
      message_count: 4,
      summary_seq: forked.find((r) => r.kind === "system_event")!.seq,
    });

    // The reads follow it, summary and all, and the next message goes after it.
    const messages = await db.repo.messages(owner, fork.id);
    expect(messages.map((m) => m.parts)).toEqual((await db.repo.messages(owner, threadId)).slice(0, 5).map((m) => m.parts));
    expect((await db.adapter.summaries.latest({ owner, threadId: fork.id }))?.id).toBe(newId.get("summary-1"));
    await db.adapter.appendUserMessage({ owner, threadId: fork.id, turnId: "t", message: { id: "next", role: "user", content: "Go on" } });
    expect((await db.adapter.get({ owner, threadId: fork.id })).map((m) => m.id).at(-1)).toBe("next");
    const { rows } = await db.pool.query("SELECT parent_message_id FROM messages WHERE thread_id = $1 AND message_id = 'next'", [fork.id]);
    expect(rows[0].parent_message_id).toBe(newId.get("a2b"));
    expect(await rowsOf(db.pool, threadId)).toEqual(sourceRows);
  });

  it("at the first message holds only it", async () => {
    const owner = `owner-${randomUUID()}`;
    const { threadId } = await versionedThread(db.adapter, owner);
    const fork = await db.repo.fork(owner, threadId, "u1");
    expect(await db.repo.messages(owner, fork.id)).toMatchObject([{ role: "user", parts: [{ type: "text", text: "What time is it in Zürich?" }] }]);
    expect(fork.messageCount).toBe(1);
  });

  it("keeps a long title within the limit, with \"(fork)\" at its end, and never cuts a character in half", async () => {
    const owner = `owner-${randomUUID()}`;
    const { threadId } = await versionedThread(db.adapter, owner);
    const long = `${"a".repeat(limits.maxTitleChars - 8)}😀😀`;
    await db.repo.rename(owner, threadId, long);
    const fork = await db.repo.fork(owner, threadId, "a1");
    expect(fork.title).toHaveLength(limits.maxTitleChars - 1);
    expect(fork.title).toBe(`${"a".repeat(limits.maxTitleChars - 8)} (fork)`);
    expect(fork.title.isWellFormed()).toBe(true);
  });

  it("is refused for a message off the active path, an unknown message, or another owner's thread, writing nothing", async () => {
    const owner = `owner-${randomUUID()}`;
    const { threadId } = await versionedThread(db.adapter, owner);
    const count = async () => (await db.pool.query("SELECT count(*)::int AS n FROM threads")).rows[0].n;
    const before = await count();
    for (const messageId of ["a2", "u1b", "a1b", "nope"]) {
      await expect(db.repo.fork(owner, threadId, messageId), messageId).rejects.toMatchObject({ code: "not_found:message" });
    }
    const stranger = `owner-${randomUUID()}`;
    const refusal = await db.repo.fork(stranger, threadId, "u1").catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: "not_found:thread", message: "Thread not found." });
    await expect(db.repo.fork(owner, randomUUID(), "u1")).rejects.toMatchObject({ code: "not_found:thread" });
    expect(await count()).toBe(before);
  });
});

describe("POST /api/threads/:id/fork", () => {
  const t = integrationApp({ model: "offline" });

  const post = (threadId: string, cookie: string, json: unknown) =>
    forkRoute.POST(request(`/api/threads/${threadId}/fork`, { method: "POST", cookie, json }), params(threadId));

  it("answers 201 with the new thread, which the owner can read", async () => {
    const me = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);
    const response = await post(threadId, me.cookie, { messageId: "u2" });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(Object.keys(body)).toEqual(["thread"]);
    expect(body.thread).toMatchObject({ title: "What time is it in Zürich? (fork)", messageCount: 3 });
    expect(Object.keys(body.thread).sort()).toEqual(["createdAt", "id", "messageCount", "model", "source", "sourceId", "sourceMetadata", "title", "updatedAt"]);
    expect(body.thread).toMatchObject({ source: "fork", sourceId: threadId, sourceMetadata: { messageId: "u2" } });
    const read = await thread.GET(request(`/api/threads/${body.thread.id}`, { cookie: me.cookie }), params(body.thread.id));
    expect((await read.json()).thread).toEqual(body.thread);
  });

  it("answers another owner exactly as a missing thread, names a message off the path, and checks the body", async () => {
    const me = await visitor();
    const stranger = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);

    const theirs = await post(threadId, stranger.cookie, { messageId: "u1" });
    const missing = await post(randomUUID(), stranger.cookie, { messageId: "u1" });
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await theirs.json()).toEqual(await missing.json());

    const offPath = await post(threadId, me.cookie, { messageId: "a2" });
    expect(offPath.status).toBe(404);
    expect((await offPath.json()).error).toMatchObject({ code: "not_found:message", message: expect.stringContaining("not in the thread as it is shown") });

    const bad = await post(threadId, me.cookie, { message: "u1" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain("messageId");
    expect((await post("not-a-uuid", me.cookie, { messageId: "u1" })).status).toBe(400);
  });

  it("goes on like any thread: a new message is answered after the copied path, and a copied reply can be regenerated", async () => {
    const me = await visitor();
    const adapter = new PostgresHistoryAdapter(t.pool);
    const { threadId } = await versionedThread(adapter, me.id);
    const { thread: forked } = await (await post(threadId, me.cookie, { messageId: "a2b" })).json();
    const copied = await adapter.get({ owner: me.id, threadId: forked.id });
    const [, , copiedQuestion, copiedReply] = copied;
    expect(copiedReply.parts).toEqual([{ type: "text", text: "Rainy all day.", agentName: "Triage" }]);

    // A regenerate of a reply the fork copied: its question has no turn of its own in the fork yet.
    const again = await chatTurn(chat, { threadId: forked.id, message: { id: copiedQuestion.id, content: "And the weather?" }, replaces: copiedReply.id }, me.cookie);
    expect(again.response.status).toBe(200);
    const path = await adapter.get({ owner: me.id, threadId: forked.id });
    expect(path.map((m) => m.id).slice(0, 3)).toEqual(copied.slice(0, 3).map((m) => m.id));
    expect(path).toHaveLength(4);
    expect(path[3].id).not.toBe(copiedReply.id);
    expect((await adapter.versions.versions({ owner: me.id, threadId: forked.id })).map((v) => v.versions)).toEqual([[copiedReply.id, path[3].id]]);

    const next = await chatTurn(chat, { threadId: forked.id, message: { id: randomUUID(), content: "And tomorrow?" } }, me.cookie);
    expect(next.response.status).toBe(200);
    expect(next.response.headers.get("x-history-source")).toBe("database");
    expect((await adapter.get({ owner: me.id, threadId: forked.id })).map((m) => m.id).slice(0, 4)).toEqual(path.map((m) => m.id));
    // The source did not move.
    expect((await adapter.get({ owner: me.id, threadId })).map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2b", "u3", "a3"]);
  });
});

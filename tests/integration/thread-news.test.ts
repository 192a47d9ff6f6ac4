import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import type { ThreadListItem, ThreadPage } from "@/lib/protocol/threads";
import { params, parseChunks, replyText, request, visitor } from "../support/api";
import { followNews } from "../support/thread-news";
import * as chat from "@/app/api/chat/route";
import * as listRoute from "@/app/api/threads/route";
import * as readRoute from "@/app/api/threads/[id]/read/route";
import * as eventsRoute from "@/app/api/threads/events/route";
import { integrationApp } from "../support/integration";

// The sidebar's live parts: the list says which threads are generating and
// which hold a reply the owner has not seen, the read route marks one seen,
// and the events stream tells the owner (only them) when a thread changed,
// whichever process changed it.
describe("the sidebar's news: generating, unseen, read, events", () => {
  const t = integrationApp();

  const send = (cookie: string, content: string, threadId?: string) =>
    chat.POST(request("/api/chat", { method: "POST", cookie, json: { ...(threadId ? { threadId } : {}), message: { id: randomUUID(), content } } }), undefined);
  const listed = async (cookie: string): Promise<ThreadListItem[]> => {
    const response = await listRoute.GET(request("/api/threads", { cookie }), undefined);
    expect(response.status).toBe(200);
    return ((await response.json()) as ThreadPage).threads;
  };
  const item = async (cookie: string, id: string) => (await listed(cookie)).find((thread) => thread.id === id);
  const read = (cookie: string, id: string) => readRoute.POST(request(`/api/threads/${id}/read`, { method: "POST", cookie }), params(id));

  /** A thread with one answered message. */
  async function answeredThread(cookie: string, content = "hello"): Promise<string> {
    const response = await send(cookie, content);
    await response.text();
    return response.headers.get("x-thread-id")!;
  }

  it("lists a thread as generating while its slow reply runs and not once it ended; the ended reply is unseen until read", async () => {
    const response = await send(t.me.cookie, "[[slow]] take your time");
    const threadId = response.headers.get("x-thread-id")!;
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (replyText(parseChunks(text)).length === 0) text += (await reader.read()).value ?? "";

    const running = (await item(t.me.cookie, threadId))!;
    expect(running).toMatchObject({ hasActiveGeneration: true, lastReplyAt: null, unseen: false });
    // Seen as it was made: by the one who wrote its first message.
    expect(Date.parse(running.lastReadAt!)).toBeGreaterThanOrEqual(Date.parse(running.createdAt));

    for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
    await expect.poll(async () => (await item(t.me.cookie, threadId))?.hasActiveGeneration).toBe(false);
    const ended = (await item(t.me.cookie, threadId))!;
    expect(ended).toMatchObject({ unseen: true, lastReadAt: running.lastReadAt });
    expect(Date.parse(ended.lastReplyAt!)).toBeGreaterThan(Date.parse(running.lastReadAt!));

    const marked = await read(t.me.cookie, threadId);
    expect(marked.status).toBe(200);
    const { lastReadAt } = (await marked.json()) as { lastReadAt: string };
    expect(Date.parse(lastReadAt)).toBeGreaterThanOrEqual(Date.parse(ended.lastReplyAt!));
    expect(await item(t.me.cookie, threadId)).toMatchObject({ unseen: false, lastReadAt, hasActiveGeneration: false });
  });

  it("a reply that ends after the thread was read is unseen again; reading does not move the thread in the list", async () => {
    const older = await answeredThread(t.me.cookie, "older");
    const newer = await answeredThread(t.me.cookie, "newer");
    expect((await read(t.me.cookie, older)).status).toBe(200);
    expect((await listed(t.me.cookie)).map((t) => [t.id, t.unseen])).toEqual([
      [newer, true],
      [older, false],
    ]);

    // A new message moves the older thread to the top; its reply is new again.
    await (await send(t.me.cookie, "again", older)).text();
    expect((await listed(t.me.cookie)).map((t) => [t.id, t.unseen])).toEqual([
      [older, true],
      [newer, true],
    ]);
  });

  it("the read route answers 404 for another identity's thread and for an unknown one, and 401 without an identity", async () => {
    const threadId = await answeredThread(t.me.cookie);
    const stranger = await visitor();
    const refused = await read(stranger.cookie, threadId);
    expect(refused.status).toBe(404);
    expect((await refused.json()).error.code).toBe("not_found:thread");
    expect((await read(t.me.cookie, randomUUID())).status).toBe(404);
    expect((await readRoute.POST(request(`/api/threads/${threadId}/read`, { method: "POST" }), params(threadId))).status).toBe(401);
    expect(await item(t.me.cookie, threadId)).toMatchObject({ unseen: true });
  });

  it("a fork starts out seen: its copied replies are not new, and it is news to the owner", async () => {
    const threadId = await answeredThread(t.me.cookie, "fork me");
    const { rows } = await t.pool.query<{ message_id: string }>("SELECT message_id FROM messages WHERE thread_id = $1 AND kind = 'assistant'", [threadId]);
    const news = await follow(t.me.cookie, t.me.id);
    try {
      const fork = await t.app.threads().fork(t.me.id, threadId, rows[0].message_id);
      expect(await news.next()).toEqual({ type: "threads", threadId: fork.id });
      expect(await item(t.me.cookie, fork.id)).toMatchObject({ unseen: false, hasActiveGeneration: false });
      expect((await item(t.me.cookie, fork.id))?.lastReplyAt).not.toBeNull();
    } finally {
      news.abort();
    }
  });

  const follow = (cookie: string, owner: string) => followNews(eventsRoute, t.app, t.pool, cookie, owner);

  it("streams an event to the owner when their thread's turn starts and when it ends, with the headers of a live stream", async () => {
    const threadId = await answeredThread(t.me.cookie);
    const news = await follow(t.me.cookie, t.me.id);
    try {
      expect(news.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(news.response.headers.get("cache-control")).toBe("no-store, no-transform");
      expect(news.response.headers.get("x-accel-buffering")).toBe("no");
      await (await send(t.me.cookie, "and now?", threadId)).text();
      expect(await news.next()).toEqual({ type: "threads", threadId });
      expect(await news.next()).toEqual({ type: "threads", threadId });
      expect(news.comments[0]).toBe(": open");
    } finally {
      news.abort();
    }
  });

  it("tells nothing of one owner's threads to another: B's first event is about B's own thread", async () => {
    const other = await visitor();
    const mine = await follow(t.me.cookie, t.me.id);
    const theirs = await follow(other.cookie, other.id);
    try {
      const myThread = await answeredThread(t.me.cookie);
      expect(await mine.next()).toEqual({ type: "threads", threadId: myThread });
      const theirThread = await answeredThread(other.cookie);
      expect(await theirs.next()).toEqual({ type: "threads", threadId: theirThread });
      expect(theirThread).not.toBe(myThread);
    } finally {
      mine.abort();
      theirs.abort();
    }
  });

  it("streams a rename, a read and a delete of the owner's thread; reading a thread already seen is no news", async () => {
    const threadId = await answeredThread(t.me.cookie);
    const other = await answeredThread(t.me.cookie, "the other");
    const news = await follow(t.me.cookie, t.me.id);
    try {
      await t.app.threads().rename(t.me.id, threadId, "Renamed");
      expect(await news.next()).toEqual({ type: "threads", threadId });
      await read(t.me.cookie, threadId);
      expect(await news.next()).toEqual({ type: "threads", threadId });
      // Seen already: every tab that opens it marks it read, and none of the others need refetch their list.
      expect((await read(t.me.cookie, threadId)).status).toBe(200);
      await t.app.threads().rename(t.me.id, other, "Next news");
      expect(await news.next()).toEqual({ type: "threads", threadId: other });
      await t.app.threads().delete(t.me.id, threadId);
      expect(await news.next()).toEqual({ type: "threads", threadId });
    } finally {
      news.abort();
    }
  });

  // Another app server writes to the same database: its turns reach this
  // process through the triggers' NOTIFY only. Not on the embedded database,
  // which one process holds.
  it.skipIf(inject("embeddedDatabase"))("streams a turn another process starts and ends (rows written straight in SQL)", async () => {
    const threadId = await answeredThread(t.me.cookie);
    const news = await follow(t.me.cookie, t.me.id);
    try {
      const messageId = randomUUID();
      await t.pool.query(
        `INSERT INTO turns (owner, message_id, thread_id, turn_id, status, lease_until) VALUES ($1, $2, $3, 'elsewhere', 'running', now() + interval '1 minute')`,
        [t.me.id, messageId, threadId],
      );
      expect(await news.next()).toEqual({ type: "threads", threadId });
      expect(await item(t.me.cookie, threadId)).toMatchObject({ hasActiveGeneration: true });
      await t.pool.query("UPDATE turns SET lease_until = now() + interval '2 minutes' WHERE owner = $1 AND message_id = $2", [t.me.id, messageId]);
      await t.pool.query("UPDATE turns SET status = 'done', lease_until = NULL WHERE owner = $1 AND message_id = $2", [t.me.id, messageId]);
      // The lease renewal is no news; the end is.
      expect(await news.next()).toEqual({ type: "threads", threadId });
      expect(await item(t.me.cookie, threadId)).toMatchObject({ hasActiveGeneration: false });
    } finally {
      news.abort();
    }
  });

  // A reminder posted by another server (straight in SQL here) is news too: the sidebar marks its thread's new reply.
  it.skipIf(inject("embeddedDatabase"))("streams a reminder another process posts, and lists it as an unseen reply", async () => {
    const threadId = await answeredThread(t.me.cookie);
    await read(t.me.cookie, threadId);
    const news = await follow(t.me.cookie, t.me.id);
    try {
      const id = randomUUID();
      await t.pool.query("INSERT INTO reminders (id, thread_id, owner, text, due_at, next_look_at, time_zone) VALUES ($1, $2, $3, 'stretch', now(), now(), 'UTC')", [id, threadId, t.me.id]);
      // Three more to come: the list carries the soonest few of them all, and counts them all.
      const later = [3, 1, 2].map((days) => ({ id: randomUUID(), text: `in ${days} days`, dueAt: new Date(Date.now() + days * 86_400_000).toISOString() }));
      for (const r of later) {
        await t.pool.query("INSERT INTO reminders (id, thread_id, owner, text, due_at, next_look_at, time_zone) VALUES ($1, $2, $3, $4, $5, $5, 'UTC')", [r.id, threadId, t.me.id, r.text, r.dueAt]);
      }
      const before = (await item(t.me.cookie, threadId))!;
      expect(before.reminderCount).toBe(4);
      expect(before.reminders.map((r) => r.text)).toEqual(["stretch", "in 1 days", "in 2 days"]);
      expect(before.reminders[1]).toEqual(later[1]);

      await t.pool.query("SELECT threadline_post_reminder($1)", [id]);
      expect(await news.next()).toEqual({ type: "threads", threadId });
      const after = (await item(t.me.cookie, threadId))!;
      expect(after).toMatchObject({ unseen: true, reminderCount: 3 });
      expect(after.reminders.map((r) => r.text)).toEqual(["in 1 days", "in 2 days", "in 3 days"]);
    } finally {
      news.abort();
    }
  });

  it("does not list as generating a turn whose runner died (its lease ran out)", async () => {
    const threadId = await answeredThread(t.me.cookie);
    await t.pool.query(
      `INSERT INTO turns (owner, message_id, thread_id, turn_id, status, lease_until) VALUES ($1, $2, $3, 'dead', 'running', now() - interval '1 second')`,
      [t.me.id, randomUUID(), threadId],
    );
    expect(await item(t.me.cookie, threadId)).toMatchObject({ hasActiveGeneration: false });
    // A durable run holds its turn without a lease: it runs until it finishes it.
    await t.pool.query(`INSERT INTO turns (owner, message_id, thread_id, turn_id, status, lease_until) VALUES ($1, $2, $3, 'durable', 'running', NULL)`, [
      t.me.id,
      randomUUID(),
      threadId,
    ]);
    expect(await item(t.me.cookie, threadId)).toMatchObject({ hasActiveGeneration: true });
  });

  it("ends the stream when the client goes, and lets go of the process's news", async () => {
    // The news streams only: earlier turns' writers, waiting for asks, let go on their own time.
    const streams = () => t.app.liveBus().listeners("threads");
    const before = streams();
    const news = await follow(t.me.cookie, t.me.id);
    expect(streams()).toBe(before + 1);
    news.abort();
    while (!(await news.reader.read()).done);
    expect(streams()).toBe(before);
  });

  it("answers 401 without an identity", async () => {
    const response = await eventsRoute.GET(request("/api/threads/events"), undefined);
    expect(response.status).toBe(401);
  });
});

import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { chatTurn, params, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as feedbackRoute from "@/app/api/threads/[id]/messages/[messageId]/feedback/route";
import * as threadFeedbackRoute from "@/app/api/threads/[id]/feedback/route";
import * as listRoute from "@/app/api/feedback/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import * as timelineRoute from "@/app/api/threads/[id]/timeline/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import type { FeedbackList, FeedbackResponse, ThreadFeedback } from "@/lib/protocol/feedback";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import type { TimelineEntry } from "@/lib/protocol/threads";
import { integrationApp } from "../support/integration";

// What the owner thought of each reply version: set, changed and cleared
// through one idempotent PUT, per version (a regenerate's has its own), in
// the timeline, the export and an import of it, listed for the operator's
// scripts a page at a time, never read by the model, and gone with the
// thread. Every bad input is a clear 400, another owner's a 404.
describe("feedback on replies", () => {
  // Compaction early: a summary is a message of the thread that takes no feedback.
  const t = integrationApp({ settings: { COMPACTION_MAX_MESSAGES: "6", COMPACTION_TARGET_MESSAGES: "4", COMPACTION_KEEP_TURNS: "1" } });

  const replyIdOf = (chunks: UIMessageChunk[]) => chunks.find((c): c is Extract<UIMessageChunk, { type: "start" }> => c.type === "start")!.messageId!;
  /** A thread with one answered message: its id, the user's message and the reply. */
  async function answered(cookie: string, content = "How are you?") {
    const message = { id: randomUUID(), content };
    const turn = await chatTurn(chat, { message }, cookie);
    expect(turn.response.status).toBe(200);
    return { threadId: turn.threadId!, userMessageId: message.id, message, replyId: replyIdOf(turn.chunks) };
  }
  const put = (cookie: string, threadId: string, messageId: string, body: unknown) =>
    feedbackRoute.PUT(request(`/api/threads/${threadId}/messages/${messageId}/feedback`, { method: "PUT", cookie, json: body }), {
      params: Promise.resolve({ id: threadId, messageId }),
    });
  const ofThread = async (cookie: string, threadId: string) => {
    const response = await threadFeedbackRoute.GET(request(`/api/threads/${threadId}/feedback`, { cookie }), params(threadId));
    expect(response.status).toBe(200);
    return ((await response.json()) as ThreadFeedback).feedback;
  };
  const rows = async (threadId: string) => (await t.pool.query("SELECT message_id, rating FROM message_feedback WHERE thread_id = $1", [threadId])).rows;
  const list = async (cookie: string, query = "") => listRoute.GET(request(`/api/feedback${query}`, { cookie }), undefined as never);
  const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

  it("sets, changes and clears a reply's feedback; the same body twice is one row; the timeline shows it while it stands", async () => {
    const me = await visitor();
    const { threadId, replyId } = await answered(me.cookie);

    const up = await put(me.cookie, threadId, replyId, { rating: "up" });
    expect(up.status).toBe(200);
    expect(((await up.json()) as FeedbackResponse).feedback).toEqual({ rating: "up", updatedAt: expect.any(String) });
    expect((await put(me.cookie, threadId, replyId, { rating: "up" })).status).toBe(200);
    expect(await rows(threadId)).toEqual([{ message_id: replyId, rating: "up" }]);

    const down = await put(me.cookie, threadId, replyId, { rating: "down", reason: "inaccurate", comment: "  The year is wrong.  " });
    const changed = ((await down.json()) as FeedbackResponse).feedback!;
    expect(changed).toMatchObject({ rating: "down", reason: "inaccurate", comment: "The year is wrong." });
    expect(await ofThread(me.cookie, threadId)).toEqual({ [replyId]: changed });
    const timeline = await timelineRoute.GET(request(`/api/threads/${threadId}/timeline`, { cookie: me.cookie }), params(threadId));
    const entries = ((await timeline.json()) as { parts: TimelineEntry[] }).parts;
    expect(entries.some((e) => e.messageId === replyId)).toBe(true);
    expect(entries.filter((e) => e.messageId === replyId).every((e) => e.feedback?.rating === "down")).toBe(true);
    expect(entries.filter((e) => e.role === "user").some((e) => e.feedback)).toBe(false);

    const cleared = await put(me.cookie, threadId, replyId, { rating: null });
    expect(((await cleared.json()) as FeedbackResponse).feedback).toBeNull();
    expect(await rows(threadId)).toEqual([]);
    expect(await ofThread(me.cookie, threadId)).toEqual({});
    // Clearing what is not there is no error either.
    expect((await put(me.cookie, threadId, replyId, { rating: null })).status).toBe(200);
  });

  it("keeps each version's feedback apart: a regenerated reply starts with none", async () => {
    const me = await visitor();
    const { threadId, message, replyId } = await answered(me.cookie, "Tell me a fact [[nth]]");
    await put(me.cookie, threadId, replyId, { rating: "down", reason: "unhelpful" });
    const again = await chatTurn(chat, { threadId, message, replaces: replyId }, me.cookie);
    expect(again.response.status).toBe(200);
    const second = replyIdOf(again.chunks);
    expect(second).not.toBe(replyId);
    expect(Object.keys(await ofThread(me.cookie, threadId))).toEqual([replyId]);
    await put(me.cookie, threadId, second, { rating: "up" });
    expect(await ofThread(me.cookie, threadId)).toMatchObject({ [replyId]: { rating: "down" }, [second]: { rating: "up" } });
  });

  it("refuses a bad body, a user's message, a message not in the thread and another owner's thread, and stores nothing", async () => {
    const me = await visitor();
    const { threadId, userMessageId, replyId } = await answered(me.cookie);
    const cases: [unknown, string][] = [
      [{ rating: "meh" }, 'must be "up", "down" or null'],
      [{ rating: null, comment: "why" }, "a reason or a comment needs a rating"],
      [{ rating: "down", reason: "boring" }, "must be one of inaccurate"],
      [{ rating: "down", comment: "x".repeat(2001) }, "must be at most 2000 characters"],
      [{ rating: "up", extra: 1 }, "extra"],
      [{}, "rating"],
    ];
    for (const [body, words] of cases) {
      const response = await put(me.cookie, threadId, replyId, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = await errorOf(response);
      expect(error.code, JSON.stringify(body)).toMatch(/^bad_request:/);
      expect(error.message, JSON.stringify(body)).toContain(words);
    }
    const user = await put(me.cookie, threadId, userMessageId, { rating: "up" });
    expect(user.status).toBe(400);
    expect((await errorOf(user)).code).toBe("bad_request:feedback");
    // A summary of earlier messages is the thread's, not a reply.
    for (const words of ["two", "three", "four"]) await chatTurn(chat, { threadId, message: { id: randomUUID(), content: words } }, me.cookie);
    const summaryId = async () =>
      (await t.pool.query<{ message_id: string }>("SELECT message_id FROM messages WHERE thread_id = $1 AND kind = 'system_event'", [threadId])).rows[0]?.message_id;
    await expect.poll(summaryId, { timeout: 20_000 }).toBeDefined();
    const summary = await put(me.cookie, threadId, (await summaryId())!, { rating: "up" });
    expect(summary.status).toBe(400);
    expect((await errorOf(summary)).message).toContain("summary");
    const missing = await put(me.cookie, threadId, "no-such-message", { rating: "up" });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe("not_found:message");
    const badId = await put(me.cookie, threadId, "bad id!", { rating: "up" });
    expect(badId.status).toBe(400);
    const other = await visitor();
    const theirs = await put(other.cookie, threadId, replyId, { rating: "up" });
    expect(theirs.status).toBe(404);
    expect((await errorOf(theirs)).code).toBe("not_found:thread");
    expect((await threadFeedbackRoute.GET(request(`/api/threads/${threadId}/feedback`, { cookie: other.cookie }), params(threadId))).status).toBe(404);
    expect(await rows(threadId)).toEqual([]);
  });

  it("travels in the export and comes back with an import under the new ids; a file with feedback on a user's message is refused", async () => {
    const me = await visitor();
    const { threadId, replyId } = await answered(me.cookie);
    await put(me.cookie, threadId, replyId, { rating: "down", reason: "too-long", comment: "Shorter, please." });
    const exported = await exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie: me.cookie }), params(threadId));
    const file = (await exported.json()) as ThreadExport;
    const reply = file.messages.find((m) => m.id === replyId)!;
    expect(reply.feedback).toMatchObject({ rating: "down", reason: "too-long", comment: "Shorter, please." });

    const markdown = await exportRoute.GET(request(`/api/threads/${threadId}/export?format=markdown`, { cookie: me.cookie }), params(threadId));
    expect(await markdown.text()).toContain("_Feedback: bad response: Too long_ — Shorter, please.");

    const imported = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: me.cookie, json: file }), undefined);
    expect(imported.status).toBe(201);
    const copy = ((await imported.json()) as { thread: { id: string } }).thread.id;
    const copied = await ofThread(me.cookie, copy);
    expect(Object.values(copied)).toEqual([reply.feedback]);
    expect(Object.keys(copied)[0]).not.toBe(replyId);

    const wrong = structuredClone(file);
    wrong.messages[0].feedback = { rating: "up", updatedAt: new Date().toISOString() };
    const refused = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: me.cookie, json: wrong }), undefined);
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).message).toContain("feedback belongs only on an assistant message");
  });

  it("lists the owner's feedback since a time, oldest first, a page at a time, with each reply's model and thread title", async () => {
    const me = await visitor();
    const since = new Date().toISOString();
    const replies = [];
    for (const content of ["one", "two", "three"]) {
      const { threadId, replyId } = await answered(me.cookie, content);
      await put(me.cookie, threadId, replyId, { rating: content === "two" ? "down" : "up" });
      replies.push(replyId);
    }
    const stranger = await visitor();
    const theirs = await answered(stranger.cookie);
    await put(stranger.cookie, theirs.threadId, theirs.replyId, { rating: "up" });

    const first = (await (await list(me.cookie, `?since=${encodeURIComponent(since)}&limit=2`)).json()) as FeedbackList;
    expect(first.feedback.map((f) => f.messageId)).toEqual(replies.slice(0, 2));
    expect(first.feedback[1]).toMatchObject({ rating: "down", model: expect.any(String), threadTitle: expect.any(String) });
    expect(first.next).not.toBeNull();
    const rest = (await (await list(me.cookie, `?cursor=${encodeURIComponent(first.next!)}&limit=2`)).json()) as FeedbackList;
    expect(rest.feedback.map((f) => f.messageId)).toEqual([replies[2]]);
    expect(rest.next).toBeNull();

    // The same file imported twice: three feedbacks of the very same time (the first's and two copies), all listed, one a page.
    const exported = await exportRoute.GET(request(`/api/threads/${first.feedback[0].threadId}/export?format=json`, { cookie: me.cookie }), params(first.feedback[0].threadId));
    const file = await exported.json();
    for (let i = 0; i < 2; i++) {
      expect((await importRoute.POST(request("/api/threads/import", { method: "POST", cookie: me.cookie, json: file }), undefined)).status).toBe(201);
    }
    const twins: FeedbackList["feedback"] = [];
    const justBefore = new Date(Date.parse(first.feedback[0].updatedAt) - 1).toISOString();
    let page = (await (await list(me.cookie, `?since=${encodeURIComponent(justBefore)}&limit=1`)).json()) as FeedbackList;
    for (;;) {
      twins.push(...page.feedback.filter((f) => f.updatedAt === first.feedback[0].updatedAt));
      if (!page.next) break;
      page = (await (await list(me.cookie, `?cursor=${encodeURIComponent(page.next)}&limit=1`)).json()) as FeedbackList;
    }
    expect(twins).toHaveLength(3);
    expect(new Set(twins.map((f) => f.threadId)).size).toBe(3);
    expect((await list(me.cookie, "?cursor=not-a-cursor")).status).toBe(400);

    const bad = await list(me.cookie, "?since=yesterday");
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).message).toContain("ISO 8601");
    expect((await list(me.cookie, "?limit=0")).status).toBe(400);
  });

  it("never reaches the model, and goes with its thread", async () => {
    const me = await visitor();
    const { threadId, replyId } = await answered(me.cookie);
    await put(me.cookie, threadId, replyId, { rating: "down", reason: "other", comment: "PRIVATE-REMARK-42" });
    t.mock.requests.length = 0;
    const next = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "And now?" } }, me.cookie);
    expect(next.response.status).toBe(200);
    expect(t.mock.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(t.mock.requests)).not.toContain("PRIVATE-REMARK-42");

    const deleted = await threadRoute.DELETE(request(`/api/threads/${threadId}`, { method: "DELETE", cookie: me.cookie }), params(threadId));
    expect(deleted.status).toBe(204);
    expect(await rows(threadId)).toEqual([]);
  });
});

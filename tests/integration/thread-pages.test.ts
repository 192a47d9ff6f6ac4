import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { params, request, visitor } from "../support/api";
import * as messages from "@/app/api/threads/[id]/messages/route";
import { integrationApp } from "../support/integration";

// A long thread is read a page at a time, newest first: GET /api/threads/:id/messages.
const t = integrationApp({ modelUrl: "http://127.0.0.1:9/unused" });

/** A thread of `count` messages, alternating user and assistant, written straight to the database. */
async function threadOf(owner: string, count: number): Promise<string> {
  const { threadId } = await new PostgresHistoryAdapter(t.pool).createThread({ owner });
  await t.pool.query(
    `INSERT INTO messages (thread_id, seq, message_id, kind, content)
     SELECT $1, g, 'm' || g, CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END, 'message ' || g
       FROM generate_series(1, $2::int) AS g`,
    [threadId, count],
  );
  await t.pool.query("UPDATE threads SET next_seq = $2 + 1, message_count = $2 WHERE id = $1", [threadId, count]);
  return threadId;
}

const get = (threadId: string, query: string, cookie: string) =>
  messages.GET(request(`/api/threads/${threadId}/messages${query}`, { cookie }), params(threadId));

describe("GET /api/threads/:id/messages", () => {
  it("pages a 300-message thread from the newest back to the first, in order, with no gap and no repeat", async () => {
    const me = await visitor();
    const threadId = await threadOf(me.id, 300);
    const pages: { id: string; seq: number; signature?: string }[][] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const response = await get(threadId, cursor ? `?cursor=${cursor}` : "", me.cookie);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { messages: { id: string; seq: number; signature?: string }[]; nextCursor: string | null };
      pages.push(body.messages);
      cursor = body.nextCursor;
    }
    expect(pages.map((p) => p.length)).toEqual([50, 50, 50, 50, 50, 50]);
    const all = pages.reverse().flat();
    expect(all.map((m) => m.seq)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(new Set(all.map((m) => m.id)).size).toBe(300);
    expect(all.every((m) => typeof m.signature === "string")).toBe(true);
  });

  it("takes a smaller page, and is the whole thread when it is short", async () => {
    const me = await visitor();
    const threadId = await threadOf(me.id, 7);
    const small = await (await get(threadId, "?limit=5", me.cookie)).json();
    expect(small.messages.map((m: { seq: number }) => m.seq)).toEqual([3, 4, 5, 6, 7]);
    expect(small.nextCursor).toBe("b3");
    const rest = await (await get(threadId, `?limit=5&cursor=${small.nextCursor}`, me.cookie)).json();
    expect(rest).toMatchObject({ nextCursor: null });
    expect(rest.messages.map((m: { seq: number }) => m.seq)).toEqual([1, 2]);
  });

  it("is the owner's only, and refuses a cursor or a limit it did not hand out, naming the field", async () => {
    const me = await visitor();
    const stranger = await visitor();
    const threadId = await threadOf(me.id, 3);
    expect((await get(threadId, "", stranger.cookie)).status).toBe(404);
    expect((await get(threadId, "?cursor=b2", stranger.cookie)).status).toBe(404);
    expect((await get(randomUUID(), "", me.cookie)).status).toBe(404);
    for (const [query, field] of [["?cursor=42", "cursor"], ["?cursor=b0", "cursor"], ["?limit=0", "limit"], ["?limit=101", "limit"], ["?limit=x", "limit"]]) {
      const response = await get(threadId, query, me.cookie);
      expect(response.status, query).toBe(400);
      expect((await response.json()).error.message, query).toContain(field);
    }
  });
});

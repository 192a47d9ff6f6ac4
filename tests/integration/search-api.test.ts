import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chatTurn, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as search from "@/app/api/search/route";
import { integrationApp } from "../support/integration";

// GET /api/search: the sidebar's search over the owner's threads.
const t = integrationApp();

async function say(cookie: string, content: string): Promise<string> {
  return (await chatTurn(chat, { message: { id: randomUUID(), content } }, cookie)).threadId!;
}
const find = (cookie: string, query: string) => search.GET(request(`/api/search?${query}`, { cookie }), undefined);

describe("GET /api/search", () => {
  it("finds the owner's thread by a word said in it, with the message and the match highlighted, never another identity's", async () => {
    const me = await visitor();
    const stranger = await visitor();
    const word = `quokka${randomUUID().slice(0, 8)}`;
    const messageId = randomUUID();
    const mine = (await chatTurn(chat, { message: { id: messageId, content: `I met a ${word} on Rottnest island` } }, me.cookie)).threadId!;
    await say(stranger.cookie, `stranger's ${word} story`);
    const response = await find(me.cookie, `q=${word}`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.results.map((r: { threadId: string }) => r.threadId)).toEqual([mine]);
    const [result] = body.results;
    // The reply quotes the same words; the user's own message is the one a result opens at.
    expect(result).toMatchObject({ title: `I met a ${word} on Rottnest island`, messageId, updatedAt: expect.any(String) });
    const [start, end] = result.highlights[0];
    expect(result.snippet.slice(start, end)).toBe(word);
    expect(body.nextCursor).toBeNull();
  });

  it("pages with the cursor it hands out", async () => {
    const me = await visitor();
    const word = `wombat${randomUUID().slice(0, 8)}`;
    for (let i = 0; i < 3; i++) await say(me.cookie, `${word} number ${i}`);
    const first = await (await find(me.cookie, `q=${word}&limit=2`)).json();
    expect(first.results).toHaveLength(2);
    const second = await (await find(me.cookie, `q=${word}&limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.results).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
  });

  it("refuses an empty or over-long query, a bad limit or a cursor it did not hand out, naming the field", async () => {
    const me = await visitor();
    for (const [query, field] of [
      ["q=", "q"],
      ["", "q"],
      [`q=${"x".repeat(201)}`, "q"],
      ["q=a&limit=0", "limit"],
      ["q=a&limit=abc", "limit"],
      ["q=a&cursor=DROP%20TABLE", "cursor"],
    ]) {
      const response = await find(me.cookie, query);
      expect(response.status, query).toBe(400);
      expect((await response.json()).error.message.startsWith(`${field}: `)).toBe(true);
    }
  });
});

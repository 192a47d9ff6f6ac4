import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as memoryRoute from "@/app/api/memory/route";
import * as oneMemory from "@/app/api/memory/[id]/route";
import * as memorySettings from "@/app/api/memory/settings/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import type { Memory, MemoriesResponse, MemoryResponse } from "@/lib/protocol/memory";
import { chatTurn, params, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import { integrationApp } from "../support/integration";

// A person's memories as the memory routes keep them: listed and searched,
// added by hand, reworded and deleted for good, theirs only, bounded in
// length and count (the oldest unused making room), their memory on or off,
// the install's off, and a thread's deletion leaving its memories standing.
const t = integrationApp({ model: "offline", settings: { RATE_LIMIT_CHAT_PER_MINUTE: "0" } });

const idParams = (id: string) => ({ params: Promise.resolve({ id }) });

async function list(cookie: string, q?: string): Promise<MemoriesResponse> {
  const response = await memoryRoute.GET(request(`/api/memory${q === undefined ? "" : `?q=${encodeURIComponent(q)}`}`, { cookie }), undefined);
  expect(response.status).toBe(200);
  return response.json();
}

const add = (cookie: string, body: unknown) => memoryRoute.POST(request("/api/memory", { method: "POST", cookie, json: body }), undefined);

async function added(cookie: string, text: string): Promise<MemoryResponse> {
  const response = await add(cookie, { text });
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}

const patch = (cookie: string, id: string, body: unknown) => oneMemory.PATCH(request(`/api/memory/${id}`, { method: "PATCH", cookie, json: body }), idParams(id));
const remove = (cookie: string, id: string) => oneMemory.DELETE(request(`/api/memory/${id}`, { method: "DELETE", cookie }), idParams(id));
const texts = (memories: Memory[]) => memories.map((memory) => memory.text);

describe("a person's memories", () => {
  it("are added by hand, listed newest first, reworded and deleted for good", async () => {
    const me = await visitor();
    expect(await list(me.cookie)).toEqual({ memories: [], enabled: true });
    const tea = await added(me.cookie, "  Prefers   tea over coffee ");
    expect(tea.memory).toMatchObject({ text: "Prefers tea over coffee", source: null, lastUsedAt: null });
    const lisbon = await added(me.cookie, "Lives in Lisbon");
    expect(texts((await list(me.cookie)).memories)).toEqual(["Lives in Lisbon", "Prefers tea over coffee"]);

    const reworded = await patch(me.cookie, tea.memory.id, { text: "Prefers green tea" });
    expect(reworded.status).toBe(200);
    expect((await reworded.json()).memory).toMatchObject({ id: tea.memory.id, text: "Prefers green tea" });

    expect((await remove(me.cookie, lisbon.memory.id)).status).toBe(204);
    expect((await remove(me.cookie, lisbon.memory.id)).status).toBe(404);
    expect((await patch(me.cookie, lisbon.memory.id, { text: "back" })).status).toBe(404);
    expect(texts((await list(me.cookie)).memories)).toEqual(["Prefers green tea"]);
    // The tombstone keeps nothing of what it said.
    const { rows } = await t.pool.query("SELECT state, text FROM memories WHERE id = $1", [lisbon.memory.id]);
    expect(rows).toEqual([{ state: "deleted", text: "" }]);
  });

  it("are found by their words, the best match first", async () => {
    const me = await visitor();
    await added(me.cookie, "Works on the Threadline project");
    await added(me.cookie, "Prefers metric units");
    await added(me.cookie, "Runs the Threadline project's release, and tests every Threadline release");
    expect(texts((await list(me.cookie, "threadline release")).memories)).toEqual(["Runs the Threadline project's release, and tests every Threadline release"]);
    expect(texts((await list(me.cookie, "threadline")).memories)[0]).toBe("Runs the Threadline project's release, and tests every Threadline release");
    expect((await list(me.cookie, "coffee")).memories).toEqual([]);
  });

  it("are their owner's only: another person's is not found, to read, reword or delete", async () => {
    const me = await visitor();
    const other = await visitor();
    const mine = await added(me.cookie, "Has a cat named Io");
    expect((await list(other.cookie)).memories).toEqual([]);
    expect((await patch(other.cookie, mine.memory.id, { text: "Has no cat" })).status).toBe(404);
    expect((await remove(other.cookie, mine.memory.id)).status).toBe(404);
    expect(texts((await list(me.cookie)).memories)).toEqual(["Has a cat named Io"]);
  });

  it("refuse a bad body or id with a clear error, and store nothing", async () => {
    const me = await visitor();
    const cases: [unknown, string][] = [
      [{ text: "" }, "text: must not be empty"],
      [{ text: "   " }, "text: must not be empty"],
      [{ text: "x".repeat(501) }, "text: must be at most 500 characters"],
      [{ text: 5 }, "text: must be a string"],
      [{ text: "ok", source: "x" }, 'has no field "source"'],
      [{}, "text"],
    ];
    for (const [body, message] of cases) {
      const response = await add(me.cookie, body);
      expect(response.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect((await response.json()).error.message).toContain(message);
    }
    expect((await add(me.cookie, { text: "x".repeat(5000) })).status).toBe(413);
    expect((await patch(me.cookie, "not-a-uuid", { text: "x" })).status).toBe(400);
    expect((await remove(me.cookie, randomUUID())).status).toBe(404);
    expect((await list(me.cookie)).memories).toEqual([]);
    const unsigned = await memoryRoute.GET(request("/api/memory"), undefined);
    expect(unsigned.status).toBe(401);
  });

  it("keep MEMORY_PER_IDENTITY at most: the oldest unused makes room, and the answer says which", async () => {
    await t.configure({ MEMORY_PER_IDENTITY: "3" });
    const me = await visitor();
    const first = await added(me.cookie, "one");
    await added(me.cookie, "two");
    await added(me.cookie, "three");
    // "one" was used by a reply since: "two" is now the oldest unused.
    await t.pool.query("UPDATE memories SET last_used_at = now() WHERE id = $1", [first.memory.id]);
    const fourth = await added(me.cookie, "four");
    expect(texts(fourth.evicted ?? [])).toEqual(["two"]);
    expect(texts((await list(me.cookie)).memories).sort()).toEqual(["four", "one", "three"]);
  });

  it("are turned off and on by their owner, and not kept at all with MEMORY=off", async () => {
    const me = await visitor();
    const off = await memorySettings.PUT(request("/api/memory/settings", { method: "PUT", cookie: me.cookie, json: { enabled: false } }), undefined);
    expect(await off.json()).toEqual({ enabled: false });
    expect((await list(me.cookie)).enabled).toBe(false);
    const bad = await memorySettings.PUT(request("/api/memory/settings", { method: "PUT", cookie: me.cookie, json: { enabled: "no" } }), undefined);
    expect(bad.status).toBe(400);

    await t.configure({ MEMORY: "off" });
    const refused = await memoryRoute.GET(request("/api/memory", { cookie: me.cookie }), undefined);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe("forbidden:memory_off");
    expect((await add(me.cookie, { text: "anything" })).status).toBe(403);
  });

  it("learned in a thread stay when it is deleted, their source saying so", async () => {
    const me = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "hello" } }, me.cookie);
    const threadId = turn.threadId!;
    const { rows } = await t.pool.query<{ message_id: string }>("SELECT message_id FROM messages WHERE thread_id = $1 ORDER BY seq LIMIT 1", [threadId]);
    const id = randomUUID();
    await t.pool.query("INSERT INTO memories (id, owner, text, source_thread_id, source_message_id) VALUES ($1, $2, 'Says hello', $3, $4)", [
      id,
      me.id,
      threadId,
      rows[0].message_id,
    ]);
    expect((await threadRoute.DELETE(request(`/api/threads/${threadId}`, { method: "DELETE", cookie: me.cookie }), params(threadId))).status).toBe(204);
    const [memory] = (await list(me.cookie)).memories;
    expect(memory).toMatchObject({ id, text: "Says hello", source: { threadId, messageId: rows[0].message_id, threadDeleted: true } });
  });

  it("follow a guest's threads to their account", async () => {
    const guest = await visitor();
    const account = await visitor();
    await added(guest.cookie, "Was a guest once");
    await memorySettings.PUT(request("/api/memory/settings", { method: "PUT", cookie: guest.cookie, json: { enabled: false } }), undefined);
    await t.app.threads().adopt(guest.id, account.id);
    expect(await list(account.cookie)).toMatchObject({ memories: [{ text: "Was a guest once" }], enabled: false });
    expect((await list(guest.cookie)).memories).toEqual([]);
  });
});

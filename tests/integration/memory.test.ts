import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as memoryRoute from "@/app/api/memory/route";
import * as oneMemory from "@/app/api/memory/[id]/route";
import * as memorySettings from "@/app/api/memory/settings/route";
import * as exportRoute from "@/app/api/memory/export/route";
import * as importRoute from "@/app/api/memory/import/route";
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
const importMemories = (cookie: string, body: unknown) => importRoute.POST(request("/api/memory/import", { method: "POST", cookie, json: body }), undefined);
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

  it("go out as a file and come back from it, all or none, a source kept only where it names the importer's own thread", async () => {
    const me = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "hello" } }, me.cookie);
    const { rows } = await t.pool.query<{ message_id: string }>("SELECT message_id FROM messages WHERE thread_id = $1 ORDER BY seq LIMIT 1", [turn.threadId]);
    await t.pool.query("INSERT INTO memories (id, owner, text, source_thread_id, source_message_id) VALUES ($1, $2, 'Says hello', $3, $4)", [
      randomUUID(),
      me.id,
      turn.threadId,
      rows[0].message_id,
    ]);
    await added(me.cookie, "Prefers tea");
    const exported = await exportRoute.GET(request("/api/memory/export", { cookie: me.cookie }), undefined);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-disposition")).toContain("attachment");
    const file = await exported.json();
    expect(file).toMatchObject({ version: 1, memories: [{ text: "Says hello", source: { threadId: turn.threadId } }, { text: "Prefers tea", source: null }] });

    // Into the same person's memories: what they keep already is not added twice.
    const again = await importMemories(me.cookie, file);
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual({ imported: 0, skipped: 2 });

    // Into another person's: the texts come, the first person's thread does not.
    const other = await visitor();
    const into = await importMemories(other.cookie, { ...file, memories: [...file.memories, { text: "prefers   TEA." }] });
    expect(await into.json()).toEqual({ imported: 2, skipped: 1 });
    expect((await list(other.cookie)).memories.map((m) => [m.text, m.source])).toEqual([
      ["Prefers tea", null],
      ["Says hello", null],
    ]);

    // Past the count bound nothing is added; a bad file is a 400 that says where.
    await t.configure({ MEMORY_PER_IDENTITY: "3" });
    const full = await importMemories(other.cookie, { version: 1, memories: [{ text: "One" }, { text: "Two" }] });
    expect(full.status).toBe(409);
    expect((await full.json()).error.code).toBe("conflict:memory_full");
    expect((await list(other.cookie)).memories).toHaveLength(2);
    const bad = await importMemories(other.cookie, { version: 1, memories: [{ text: "x".repeat(501) }] });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain("memories.0.text");
    expect((await importMemories(other.cookie, { version: 2, memories: [] })).status).toBe(400);
  });
});

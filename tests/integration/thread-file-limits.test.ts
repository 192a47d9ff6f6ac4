import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { limits } from "@/lib/limits";
import { MAX_JSON_DEPTH } from "@threadline/history/json-depth";
import type { JsonValue } from "@threadline/history/parts";
import { MAX_SEQ, type ExportedMessage, type ThreadExport } from "@/lib/protocol/thread-export";
import { params, request, visitor } from "../support/api";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import { integrationApp } from "../support/integration";

// Every thread file GET /api/threads/:id/export writes, POST /api/threads/import
// reads back, however long the thread and however long a reply: the import
// reads the file as it arrives and writes it in batches in one transaction,
// within the limits the export keeps too. A file it refuses, at its first
// byte or at its last, leaves nothing behind.

const t = integrationApp({ model: "offline" });

const exportOf = (threadId: string, cookie: string) =>
  exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie }), params(threadId));
const importBody = (cookie: string | undefined, body: BodyInit, headers: Record<string, string> = {}) =>
  importRoute.POST(
    new Request("http://localhost/api/threads/import", {
      method: "POST",
      headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}), ...headers },
      body,
      duplex: "half",
    } as RequestInit),
    undefined,
  );

/** Every thread and part row of the database: a refused import must leave both as they were. */
async function everything() {
  const { rows } = await t.pool.query("SELECT (SELECT count(*) FROM threads)::int AS threads, (SELECT count(*) FROM messages)::int AS rows");
  return rows[0] as { threads: number; rows: number };
}

const SAID = "Ünïcödé \"quotes\", a back\\slash, a tab\t and an emoji 😀. ";

/**
 * A thread of `count` messages, user and assistant by turns, stored by hand
 * (as years of use would leave it), not by an import: one statement.
 */
async function longThread(owner: string, count: number): Promise<string> {
  const id = randomUUID();
  await t.pool.query("INSERT INTO threads (id, owner, title, title_source, next_seq) VALUES ($1, $2, 'A long thread', 'user', $3)", [id, owner, count + 1]);
  await t.pool.query(
    `INSERT INTO messages (thread_id, seq, message_id, part_index, kind, content, parent_message_id, created_at)
     SELECT $1, g, 'm' || g, 0, CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END, 'Message ' || g || ': ' || repeat($2, 4),
            CASE WHEN g > 1 THEN 'm' || (g - 1) END, now() - make_interval(secs => $3 - g)
       FROM generate_series(1, $3::int) g`,
    [id, SAID, count],
  );
  await t.pool.query("SELECT threadline_recount($1)", [id]);
  return id;
}

/** The thread a file describes, ids and export time left out (each parent by its place in the file). */
function comparable(file: ThreadExport) {
  const place = new Map(file.messages.map((m, i) => [m.id, i]));
  return { thread: { ...file.thread, updatedAt: undefined }, messages: file.messages.map(({ id: _id, parentId, ...rest }) => ({ ...rest, parent: parentId === null ? null : place.get(parentId) })) };
}

const userMessage = (i: number, extra: Partial<ExportedMessage> = {}): ExportedMessage => ({
  id: `m${i}`, parentId: i === 0 ? null : `m${i - 1}`, role: "user", parts: [{ type: "text", text: `hello ${i}` }],
  status: "complete", createdAt: "2025-01-01T00:00:00.000Z", chosen: true, seq: i + 1, ...extra,
});
const fileOf = (messages: ExportedMessage[]): ThreadExport => ({
  format: "threadline.thread", version: 1, exportedAt: "2025-01-02T00:00:00.000Z",
  thread: { title: "Made by hand", createdAt: "2025-01-01T00:00:00.000Z", updatedAt: "2025-01-01T00:00:00.000Z" }, messages,
});
/** JSON nested `depth` deep: arrays in arrays around a number. */
const nested = (depth: number): JsonValue => {
  let value: JsonValue = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};
const toolReply = (input: JsonValue, output: JsonValue = "ok"): ExportedMessage => ({
  ...userMessage(1), role: "assistant",
  parts: [
    { type: "tool-call", toolCallId: "c1", toolName: "calculate", input },
    { type: "tool-result", toolCallId: "c1", toolName: "calculate", output },
  ],
});

describe("a thread file of any size a user has", () => {
  it("round-trips a 20,000-message thread: exported as compact JSON, imported whole, exported again the same", { timeout: 120_000 }, async () => {
    const me = await visitor();
    const threadId = await longThread(me.id, 20_000);
    const response = await exportOf(threadId, me.cookie);
    expect(response.status).toBe(200);
    const text = await response.text();
    // Larger than the 8 MB a file could be before, and compact: no indentation anywhere.
    expect(Buffer.byteLength(text)).toBeGreaterThan(8 * 1024 * 1024);
    expect(text).not.toContain('\n  "');
    const first = JSON.parse(text) as ThreadExport;
    expect(first.messages).toHaveLength(20_000);

    const importer = await visitor();
    const imported = await importBody(importer.cookie, text);
    expect(imported.status).toBe(201);
    const { thread } = await imported.json();
    expect(thread).toMatchObject({ title: "A long thread", messageCount: 20_000 });
    const again = (await (await exportOf(thread.id, importer.cookie)).json()) as ThreadExport;
    expect(comparable(again)).toEqual(comparable(first));
    // It goes on where it ended.
    const { rows } = await t.pool.query("SELECT next_seq::int FROM threads WHERE id = $1", [thread.id]);
    expect(rows[0].next_seq).toBe(20_001);
  });

  it("round-trips a thread holding a 1.5 MB reply", async () => {
    const reply = `${SAID.repeat(Math.ceil((1.5 * 1024 * 1024) / Buffer.byteLength(SAID)))}\u0000the end`;
    expect(Buffer.byteLength(reply)).toBeGreaterThan(1.5 * 1024 * 1024);
    const file = fileOf([userMessage(0), { ...userMessage(1), role: "assistant", parts: [{ type: "text", text: reply, agentName: "Writer" }] }]);
    const me = await visitor();
    const imported = await importBody(me.cookie, JSON.stringify(file));
    expect(imported.status).toBe(201);
    const { thread } = await imported.json();
    const exported = (await (await exportOf(thread.id, me.cookie)).json()) as ThreadExport;
    expect(exported.messages[1].parts).toEqual([{ type: "text", text: reply, agentName: "Writer" }]);
    expect(comparable(exported).messages).toEqual(comparable(file).messages);
    // And that export, imported in turn, is the same again.
    const other = await visitor();
    const second = await importBody(other.cookie, JSON.stringify(exported));
    expect(second.status).toBe(201);
    const third = (await (await exportOf((await second.json()).thread.id, other.cookie)).json()) as ThreadExport;
    expect(comparable(third)).toEqual(comparable(exported));
  });
});

describe("a refused thread file", () => {
  it("writes nothing, whether it breaks a rule at its last message or the database refuses its last batch", { timeout: 60_000 }, async () => {
    const me = await visitor();
    const good = Array.from({ length: 3_000 }, (_, i) => userMessage(i));
    const before = await everything();

    const brokenAtTheEnd = fileOf([...good, userMessage(3_000, { parentId: "nobody" })]);
    const refused = await importBody(me.cookie, JSON.stringify(brokenAtTheEnd));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toBe('messages.3000.parentId: "nobody" is not the id of an earlier message of the file');

    // Year 0 passes the file's checks but not the database's: written after 3,000 rows (three batches) went in.
    const refusedByTheDatabase = fileOf([...good, userMessage(3_000, { createdAt: "0000-01-01T00:00:00Z" })]);
    const failed = await importBody(me.cookie, JSON.stringify(refusedByTheDatabase));
    expect(failed.status).toBe(400);
    expect((await failed.json()).error).toMatchObject({ code: "bad_request:import", message: expect.stringContaining("Nothing was stored") });

    const cut = JSON.stringify(fileOf(good)).slice(0, -10);
    const truncated = await importBody(me.cookie, cut);
    expect(truncated.status).toBe(400);
    expect((await truncated.json()).error.code).toBe("bad_request:json");

    expect(await everything()).toEqual(before);
    // The same messages, whole, go in.
    expect((await importBody(me.cookie, JSON.stringify(fileOf(good)))).status).toBe(201);
    expect(await everything()).toEqual({ threads: before.threads + 1, rows: before.rows + 3_000 });
  });

  it("over the byte limit is refused with 413: by its declared size before a byte is read, else as soon as it passes the limit", { timeout: 120_000 }, async () => {
    const me = await visitor();
    const before = await everything();
    let pulled = 0;
    const watched = () =>
      new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulled++;
            controller.enqueue(new TextEncoder().encode('{"format":"threadline.thread"'));
            controller.close();
          },
        },
        { highWaterMark: 0 }, // pulled only when read
      );
    const declared = await importBody(me.cookie, watched(), { "content-length": String(limits.maxThreadFileBytes + 1) });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error).toMatchObject({ code: "payload_too_large:body", message: expect.stringContaining(String(limits.maxThreadFileBytes)) });
    expect(pulled).toBe(0);
    // No identity, no reading either.
    const anonymous = await importBody(undefined, watched());
    expect(anonymous.status).toBe(401);
    expect(pulled).toBe(0);

    // A body that declares nothing is read up to the limit, then cut off: white space, as valid as JSON gets until then.
    const opening = new TextEncoder().encode('{"format":"threadline.thread","messages":[');
    const blank = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          controller.enqueue(sent === 0 ? opening : blank);
          sent += sent === 0 ? opening.byteLength : blank.byteLength;
        },
      },
      { highWaterMark: 0 },
    );
    const streamed = await importBody(me.cookie, endless);
    expect(streamed.status).toBe(413);
    expect(sent).toBeGreaterThan(limits.maxThreadFileBytes);
    expect(sent).toBeLessThan(limits.maxThreadFileBytes + 4 * blank.byteLength);
    expect(await everything()).toEqual(before);
  });

  it("over the message limit is refused with 413 naming the limit, storing nothing", { timeout: 120_000 }, async () => {
    const me = await visitor();
    const before = await everything();
    // The smallest messages the format has, one more than a file may hold.
    const messages = Array.from({ length: limits.maxThreadFileMessages + 1 }, (_, i) => ({ ...userMessage(i), parts: [{ type: "text", text: "" }] }));
    const response = await importBody(me.cookie, JSON.stringify(fileOf(messages as ExportedMessage[])));
    expect(response.status).toBe(413);
    expect((await response.json()).error.message).toContain(`messages: must hold at most ${limits.maxThreadFileMessages} messages`);
    expect(await everything()).toEqual(before);
  });
});

describe("nesting and seqs", () => {
  it(`takes tool input and output nested ${MAX_JSON_DEPTH} deep, refuses one level more or an absurd depth, naming the place`, async () => {
    const me = await visitor();
    expect((await importBody(me.cookie, JSON.stringify(fileOf([userMessage(0), toolReply(nested(MAX_JSON_DEPTH), nested(MAX_JSON_DEPTH))])))).status).toBe(201);
    const before = await everything();
    const cases: [string, string, string][] = [
      ["an input", JSON.stringify(fileOf([userMessage(0), toolReply(nested(MAX_JSON_DEPTH + 1))])), `messages.1.parts.0.input: must not nest objects and arrays more than ${MAX_JSON_DEPTH} deep`],
      ["an output", JSON.stringify(fileOf([userMessage(0), toolReply(1, nested(MAX_JSON_DEPTH + 1))])), `messages.1.parts.1.output: must not nest objects and arrays more than ${MAX_JSON_DEPTH} deep`],
      // Far deeper than any stack: refused while it is read, before it is built.
      ["an absurd depth", JSON.stringify(fileOf([userMessage(0), toolReply(0)])).replace('"input":0', `"input":${"[".repeat(200_000)}${"]".repeat(200_000)}`), "The file nests objects and arrays more than"],
    ];
    for (const [what, body, message] of cases) {
      const response = await importBody(me.cookie, body);
      expect(response.status, what).toBe(400);
      expect((await response.json()).error.message, what).toContain(message);
    }
    expect(await everything()).toEqual(before);
  });

  it("refuses a seq above 2^31 - 1, or one that leaves no room for its message's parts", async () => {
    const me = await visitor();
    const before = await everything();
    for (const [seq, message] of [
      [MAX_SEQ + 1, `messages.1.seq: must be at most ${MAX_SEQ}`],
      [2 ** 40, `messages.1.seq: must be at most ${MAX_SEQ}`],
      [MAX_SEQ, `messages.1.seq: must leave a seq of at most ${MAX_SEQ} for each of its parts`],
    ] as const) {
      const response = await importBody(me.cookie, JSON.stringify(fileOf([userMessage(0), { ...toolReply(1), seq }])));
      expect(response.status, String(seq)).toBe(400);
      expect((await response.json()).error.message).toBe(message);
    }
    expect(await everything()).toEqual(before);
    // The largest seq there is still goes in, and the thread goes on after it.
    const last = await importBody(me.cookie, JSON.stringify(fileOf([userMessage(0), { ...userMessage(1), seq: MAX_SEQ }])));
    expect(last.status).toBe(201);
  });

  it(`exports a part nested ${MAX_JSON_DEPTH} deep as compact JSON, as long as the part itself, not the square of its depth`, async () => {
    const me = await visitor();
    const deep = { a: [{ b: nested(MAX_JSON_DEPTH - 3) }] };
    const imported = await importBody(me.cookie, JSON.stringify(fileOf([userMessage(0), toolReply(deep, deep)])));
    expect(imported.status).toBe(201);
    const text = await (await exportOf((await imported.json()).thread.id, me.cookie)).text();
    const part = JSON.stringify(deep);
    expect(text).toContain(`"input":${part}`);
    expect(text).toContain(`"output":${part}`);
    // Pretty-printed, each of the two parts alone would be about 2 KB of indentation: the whole file is smaller than that.
    expect(JSON.stringify(deep, null, 2).length).toBeGreaterThan(4_000);
    expect(Buffer.byteLength(text)).toBeLessThan(2 * part.length + 1_500);
    expect(text.trimEnd()).not.toContain("\n");
  });
});

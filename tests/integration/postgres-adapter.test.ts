import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { migrate } from "@/lib/db/migrate.mjs";
import { PostgresHistoryAdapter } from "@/lib/history/postgres";
import type { AgentResult } from "@/lib/history/types";
import { ThreadRepository } from "@/lib/threads/repository";
import { testPool } from "../support/db";

// The adapter must behave the same on a Postgres server and on the embedded
// one: the suite runs on the test database and, when that is a server, once
// more on an embedded Postgres of its own.
const targets: { name: string; open: () => Promise<{ pool: pg.Pool; close: () => Promise<void> }> }[] = [
  {
    name: inject("embeddedDatabase") ? "embedded Postgres (PGlite)" : "Postgres server",
    open: async () => {
      const pool = testPool();
      return { pool, close: () => pool.end() };
    },
  },
];
if (!inject("embeddedDatabase")) {
  targets.push({
    name: "embedded Postgres (PGlite)",
    open: async () => {
      const embedded = await startEmbeddedPostgres();
      await migrate(embedded.url);
      const { default: pg } = await import("pg");
      const pool = new pg.Pool({ connectionString: embedded.url, max: 1 });
      return {
        pool,
        close: async () => {
          await pool.end();
          await embedded.stop();
        },
      };
    },
  });
}

describe.each(targets)("on the $name", ({ open }) => {
  let pool: pg.Pool;
  let adapter: PostgresHistoryAdapter;
  let repo: ThreadRepository;
  let close: () => Promise<void>;
  let owner: string;

  beforeAll(async () => {
    ({ pool, close } = await open());
    adapter = new PostgresHistoryAdapter(pool);
    repo = new ThreadRepository(pool);
  });
  beforeEach(() => {
    owner = `owner-${randomUUID()}`;
  });
  afterAll(() => close());

  const userMessage = (id: string, content: string) => ({ id, role: "user" as const, content });
  const result = (content: string, id = randomUUID()): AgentResult => ({
    id,
    role: "assistant",
    agentName: "assistant",
    content,
    status: "complete",
  });

  async function rows(threadId: string) {
    const { rows } = await pool.query(
      "SELECT seq::int, message_id, kind, content FROM messages WHERE thread_id = $1 ORDER BY seq",
      [threadId],
    );
    return rows;
  }

  describe("createThread", () => {
    it("creates a thread when given no id", async () => {
      const { threadId, created } = await adapter.createThread({ owner });
      expect(created).toBe(true);
      expect(await repo.get(owner, threadId)).toMatchObject({ id: threadId, messageCount: 0 });
    });

    it("upserts a given id: creates it once, then reports that it exists, never a second row", async () => {
      const id = randomUUID();
      expect(await adapter.createThread({ owner, threadId: id })).toEqual({ threadId: id, created: true });
      expect(await adapter.createThread({ owner, threadId: id })).toEqual({ threadId: id, created: false });
      const { rows } = await pool.query("SELECT count(*)::int AS n FROM threads WHERE owner = $1", [owner]);
      expect(rows[0].n).toBe(1);
    });

    it("refuses another owner's thread id as not found and leaves it untouched", async () => {
      const { threadId } = await adapter.createThread({ owner });
      await expect(adapter.createThread({ owner: "intruder", threadId })).rejects.toMatchObject({ code: "not_found:thread" });
      const { rows } = await pool.query("SELECT owner FROM threads WHERE id = $1", [threadId]);
      expect(rows[0].owner).toBe(owner);
    });
  });

  describe("get", () => {
    it("returns [] for an unknown thread", async () => {
      expect(await adapter.get({ owner, threadId: randomUUID() })).toEqual([]);
    });

    it("returns [] for another owner's thread", async () => {
      const { threadId } = await adapter.createThread({ owner });
      await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage("m1", "secret") });
      expect(await adapter.get({ owner: "intruder", threadId })).toEqual([]);
    });
  });

  describe("appendUserMessage", () => {
    it("stores one row for the same message id sent many times concurrently", async () => {
      const { threadId } = await adapter.createThread({ owner });
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, () => adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage("same", "Hi") })),
      );
      expect(outcomes.filter((o) => !o.duplicate)).toHaveLength(1);
      expect(await rows(threadId)).toHaveLength(1);
      expect((await repo.get(owner, threadId)).messageCount).toBe(1);
    });

    it("lets a retry of the same turn find its own message instead of calling it a duplicate", async () => {
      const { threadId } = await adapter.createThread({ owner });
      const turnId = randomUUID();
      const message = userMessage("retried", "Hi");
      expect(await adapter.appendUserMessage({ owner, threadId, turnId, message })).toEqual({ duplicate: false });
      expect(await adapter.appendUserMessage({ owner, threadId, turnId, message })).toEqual({ duplicate: false });
      expect(await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message })).toEqual({ duplicate: true });
      expect(await rows(threadId)).toHaveLength(1);
      expect((await repo.get(owner, threadId)).messageCount).toBe(1);
    });

    it("titles the thread with the start of its first user message only", async () => {
      const { threadId } = await adapter.createThread({ owner });
      await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage("a", "  Plan my\ntrip to Lisbon  ") });
      await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage("b", "Something else") });
      expect((await repo.get(owner, threadId)).title).toBe("Plan my trip to Lisbon");
    });

    it("refuses a thread that is not the owner's", async () => {
      const { threadId } = await adapter.createThread({ owner });
      await expect(
        adapter.appendUserMessage({ owner: "intruder", threadId, turnId: randomUUID(), message: userMessage("x", "hi") }),
      ).rejects.toMatchObject({ code: "not_found:thread" });
      expect(await rows(threadId)).toHaveLength(0);
    });
  });

  describe("appendResults", () => {
    it("writes a batch in one statement, in order, after the user's message", async () => {
      const { threadId } = await adapter.createThread({ owner });
      await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage("u1", "question") });
      let statements = 0;
      const counting = new Proxy(pool, {
        get: (target, prop) =>
          prop === "query"
            ? (...args: Parameters<typeof pool.query>) => {
                statements++;
                return (target.query as (...a: unknown[]) => unknown)(...args);
              }
            : Reflect.get(target, prop),
      });
      await new PostgresHistoryAdapter(counting).appendResults({
        owner,
        threadId,
        results: [result("first"), result("second"), result("third")],
      });
      expect(statements).toBe(1);
      expect((await rows(threadId)).map((r) => [r.seq, r.kind, r.content])).toEqual([
        [1, "user", "question"],
        [2, "assistant", "first"],
        [3, "assistant", "second"],
        [4, "assistant", "third"],
      ]);
      expect((await repo.get(owner, threadId)).messageCount).toBe(4);
    });

    it("skips results it already stored, so a retried append adds nothing", async () => {
      const { threadId } = await adapter.createThread({ owner });
      const batch = [result("one"), result("two")];
      await adapter.appendResults({ owner, threadId, results: batch });
      await adapter.appendResults({ owner, threadId, results: batch });
      await adapter.appendResults({ owner, threadId, results: [batch[1], result("three")] });
      expect((await rows(threadId)).map((r) => [r.seq, r.content])).toEqual([
        [1, "one"],
        [2, "two"],
        [3, "three"],
      ]);
      expect((await repo.get(owner, threadId)).messageCount).toBe(3);
    });

    it("writes nothing of a batch when one row fails", async () => {
      const { threadId } = await adapter.createThread({ owner });
      const bad = { ...result("bad"), status: "exploded" } as unknown as AgentResult;
      await expect(adapter.appendResults({ owner, threadId, results: [result("good"), bad] })).rejects.toThrow();
      expect(await rows(threadId)).toHaveLength(0);
      expect((await repo.get(owner, threadId)).messageCount).toBe(0);
    });

    it("orders by sequence even when every row carries the same timestamp", async () => {
      const { threadId } = await adapter.createThread({ owner });
      for (let turn = 0; turn < 3; turn++) {
        await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage(`u${turn}`, `q${turn}`) });
        await adapter.appendResults({ owner, threadId, results: [result(`a${turn}`)] });
      }
      await pool.query("UPDATE messages SET created_at = '2026-01-01T00:00:00Z' WHERE thread_id = $1", [threadId]);
      const history = await adapter.get({ owner, threadId });
      expect(history.map((m) => m.content)).toEqual(["q0", "a0", "q1", "a1", "q2", "a2"]);
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    });
  });

  describe("text", () => {
    it("round-trips emoji, NUL bytes and backslashes exactly", async () => {
      const { threadId } = await adapter.createThread({ owner });
      const texts = ["emoji 👩‍💻🧵 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "nul\u0000in\u0000the middle", "a literal \\0 is not a NUL", "both \\ and \u0000\\0"];
      await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage("u", texts[0]) });
      await adapter.appendResults({ owner, threadId, results: texts.slice(1).map((t) => result(t)) });
      expect((await adapter.get({ owner, threadId })).map((m) => m.content)).toEqual(texts);
    });
  });

  describe("thread repository", () => {
    it("deleting a thread removes all its messages", async () => {
      const { threadId } = await adapter.createThread({ owner });
      await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage("u", "hi") });
      await adapter.appendResults({ owner, threadId, results: [result("hello")] });
      await repo.delete(owner, threadId);
      expect(await rows(threadId)).toHaveLength(0);
      await expect(repo.get(owner, threadId)).rejects.toMatchObject({ code: "not_found:thread" });
    });

    it("does not delete or rename another owner's thread", async () => {
      const { threadId } = await adapter.createThread({ owner });
      await expect(repo.delete("intruder", threadId)).rejects.toMatchObject({ code: "not_found:thread" });
      await expect(repo.rename("intruder", threadId, "mine now")).rejects.toMatchObject({ code: "not_found:thread" });
      expect((await repo.get(owner, threadId)).title).toBe("New chat");
    });

    it("lists threads by latest activity with keyset pagination that skips none and repeats none", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const { threadId } = await adapter.createThread({ owner });
        await adapter.appendUserMessage({ owner, threadId, turnId: randomUUID(), message: userMessage("u", `thread ${i}`) });
        ids.push(threadId);
      }
      // Older activity moves a thread down; a new message moves it back to the top.
      await adapter.appendUserMessage({ owner, threadId: ids[2], turnId: randomUUID(), message: userMessage("again", "bump") });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await repo.list(owner, { limit: 3, cursor });
        seen.push(...page.threads.map((t) => t.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen[0]).toBe(ids[2]);
      expect(new Set(seen).size).toBe(7);
      expect(seen.slice(1)).toEqual([ids[6], ids[5], ids[4], ids[3], ids[1], ids[0]]);
    });

    it("keeps empty threads out of the list", async () => {
      await adapter.createThread({ owner });
      expect((await repo.list(owner, { limit: 10 })).threads).toEqual([]);
    });

    it("rejects a cursor it did not hand out", async () => {
      await expect(repo.list(owner, { limit: 10, cursor: "not-a-cursor" })).rejects.toMatchObject({ code: "bad_request:cursor" });
    });
  });
});

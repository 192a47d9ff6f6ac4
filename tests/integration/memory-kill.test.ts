import { randomUUID } from "node:crypto";
import { describe, expect, inject, it, vi } from "vitest";
import { appServers } from "../support/app-servers";
import { blockPool } from "../support/db";
import { visit } from "../support/fresh-copy";
import { about, memoryRequests } from "../support/memory";
import { oneDurableServer } from "../support/one-durable-server";
import { send } from "../support/production-app";

// A lesson's server killed (SIGKILL) while the lesson's model call is on its
// way: the lesson is taken over (inline: by the other server's due work, as
// soon as the dead server's lock is gone; on Inngest: by the step's retry once
// the server is back), asks the model again (the first call never answered),
// and keeps the memory once. The first call stays on the bill at its
// reservation. The embedded database is one process's by design: skipped there.

const lessonOf = async (db: { query: (text: string, values: unknown[]) => Promise<{ rows: { state: string; outcome: string }[] }> }, threadId: string) =>
  (await db.query("SELECT state, outcome FROM memory_lessons WHERE thread_id = $1", [threadId])).rows;

describe.skipIf(inject("embeddedDatabase"))("a lesson whose server dies", () => {
  describe("on two inline servers", () => {
    const db = blockPool();
    const servers = appServers({ count: 2, env: { MEMORY_LEARNING: "on", RATE_LIMIT_CHAT_PER_MINUTE: "0" } });

    it("is taken over by the other server and learned once", { timeout: 120_000 }, async () => {
      const { apps, mock } = servers();
      const [a, b] = apps;
      const cookie = await visit(b.base);
      // Its own words: the servers' warm-up turns have lessons of their own.
      const content = `[[memory-held]] (${randomUUID()}) I live in Lisbon`;
      const ours = () => memoryRequests(mock).filter(about(content));
      const answer = await send(a.port, "POST", "/api/chat", { cookie, json: { message: { id: randomUUID(), content } } });
      expect(answer.status).toBe(200);
      const threadId = String(answer.headers["x-thread-id"]);
      // The reply's finish came while the lesson waits at the model.
      expect(await answer.text()).toContain('"type":"finish"');
      await vi.waitFor(() => expect(ours()).toHaveLength(1), { timeout: 20_000, interval: 50 });
      process.kill(-a.child.pid!, "SIGKILL");
      await a.exited;
      await vi.waitFor(() => expect(ours()).toHaveLength(2), { timeout: 30_000, interval: 100 });
      mock.releaseTitles();
      await vi.waitFor(async () => expect(await lessonOf(db, threadId)).toEqual([{ state: "done", outcome: "learned 1, updated 0, deleted 0" }]), {
        timeout: 20_000,
        interval: 100,
      });
      const { rows: memories } = await db.query("SELECT text FROM memories WHERE source_thread_id = $1 AND state = 'active'", [threadId]);
      expect(memories).toEqual([{ text: "Lives in Lisbon" }]);
      // Both calls are on the bill: the dead server's at its reservation, the answered one as the model counted it.
      const { rows: calls } = await db.query<{ state: string; counted: string; reserved: string }>(
        "SELECT state, input_tokens + output_tokens AS counted, reserved_input + reserved_output AS reserved FROM model_calls WHERE thread_id = $1 AND purpose = 'memory' ORDER BY created_at",
        [threadId],
      );
      expect(calls.map((c) => c.state)).toEqual(["reserved", "settled"]);
      expect(Number(calls[0].counted)).toBe(Number(calls[0].reserved));
      // The mock answered both once released, the dead server's into a closed socket: the app counts the one it read.
      expect(Number(calls[1].counted)).toBeGreaterThan(0);
      // Nothing more comes of it: the lesson is not taken again.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(ours()).toHaveLength(2);
    });
  });

  describe("on Inngest", () => {
    const server = oneDurableServer({ name: "memory_kill", retryDelayMs: 50, heldUntilBack: "learn-memory", env: { MEMORY_LEARNING: "on" } });

    it("is retried once the server is back and learned once", { timeout: 120_000 }, async () => {
      const { chat, mock, db, kill, restart, standin } = server();
      const content = `[[memory-held]] (${randomUUID()}) I live in Lisbon`;
      const ours = () => memoryRequests(mock).filter(about(content));
      const answer = await chat({ message: { id: randomUUID(), content } });
      expect(answer.status).toBe(200);
      const threadId = String(answer.headers["x-thread-id"]);
      expect(await answer.text()).toContain('"type":"finish"');
      await vi.waitFor(() => expect(ours()).toHaveLength(1), { timeout: 20_000, interval: 50 });
      await kill();
      await restart();
      await vi.waitFor(() => expect(ours()).toHaveLength(2), { timeout: 30_000, interval: 100 });
      mock.releaseTitles();
      await standin.idle();
      expect(await lessonOf(db, threadId)).toEqual([{ state: "done", outcome: "learned 1, updated 0, deleted 0" }]);
      const { rows: memories } = await db.query("SELECT text FROM memories WHERE source_thread_id = $1 AND state = 'active'", [threadId]);
      expect(memories).toEqual([{ text: "Lives in Lisbon" }]);
      expect(standin.runs.filter((run) => run.fnId.endsWith("learn-memory")).map((run) => run.status)).toEqual(["completed"]);
      const { rows: calls } = await db.query<{ state: string }>("SELECT state FROM model_calls WHERE thread_id = $1 AND purpose = 'memory' ORDER BY created_at", [threadId]);
      expect(calls.map((c) => c.state)).toEqual(["reserved", "settled"]);
    });
  });
});

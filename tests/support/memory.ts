import type pg from "pg";
import { vi } from "vitest";
import type { MockModelServer } from "../../scripts/mock-model-server.mjs";
import { MEMORY_INSTRUCTIONS } from "@/lib/model/memory-request.mjs";

type Body = { messages: { role: string; content: unknown }[] };

/** The mock model's requests that asked what to learn (their instructions come first). */
export const memoryRequests = (mock: MockModelServer) => (mock.requests as Body[]).filter((body) => body.messages[0]?.content === MEMORY_INSTRUCTIONS);

/** The mock model's requests that answered a turn (they have tools or stream). */
export const answerRequests = (mock: MockModelServer) => (mock.requests as (Body & { stream?: boolean })[]).filter((body) => body.stream === true);

/** A request's system messages' text, in order. */
export const systemTexts = (body: Body) => body.messages.filter((m) => m.role === "system").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

/** The lesson of a reply, once it has ended (done or failed). */
export async function endedLesson(pool: pg.Pool, replyId: string, timeout = 20_000) {
  return vi.waitFor(
    async () => {
      const { rows } = await pool.query<{ state: string; outcome: string | null; attempts: number }>(
        "SELECT state, outcome, attempts FROM memory_lessons WHERE reply_id = $1",
        [replyId],
      );
      if (!rows[0] || rows[0].state === "due") throw new Error(`the lesson of ${replyId} has not ended: ${JSON.stringify(rows[0])}`);
      return rows[0];
    },
    { timeout, interval: 25 },
  );
}

/** The owner's active memories, oldest first, with their sources. */
export async function storedMemories(pool: pg.Pool, owner: string) {
  const { rows } = await pool.query<{ id: string; text: string; source_thread_id: string | null; source_message_id: string | null }>(
    "SELECT id, text, source_thread_id, source_message_id FROM memories WHERE owner = $1 AND state = 'active' ORDER BY created_at, id",
    [owner],
  );
  return rows;
}

/** Whether a lesson's request reads the message `content` (its start: the request holds it cut). */
export const about = (content: string) => (body: Body) => JSON.stringify(body.messages).includes(JSON.stringify(content.slice(0, 40)).slice(1, -1));

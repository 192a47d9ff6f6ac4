import "server-only";
import type pg from "pg";
import type { StepRunner } from "@/lib/agent/turn/steps";
import { inTransaction } from "@/lib/db/transaction";
import { MAX_MEMORY_CHARS } from "@/lib/protocol/memory";
import type { MemoryChanges } from "@/lib/model/memory-request.mjs";
import { folded, forget } from "./memory-store";

// The lessons: one per reply, the step after it that learns memories from
// the exchange (./learning.ts). This file keeps their rows, reads what a
// lesson reads, and stores what it learned, once: the store and the lesson's
// "done" are one transaction, so a lesson run twice (a retry, a second
// server, an event sent twice) changes the memories once.

/** A reply to learn from. */
export interface Lesson {
  owner: string;
  threadId: string;
  replyId: string;
}

/** What a lesson reads: the exchange (bounded) and the memories kept so far (bounded), or why it learns nothing. */
export type LessonContext =
  | { skip: string }
  | { exchange: { user: string; assistant: string }; userMessageId: string; memories: { id: string; text: string }[] };

/** What the exchange and the kept memories may hold of a lesson's request: about 4,000 tokens in all, however long the thread or the list. */
export const LESSON_BOUNDS = { userChars: 4_000, assistantChars: 2_000, memoryChars: 6_000 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class LessonStore {
  constructor(
    private readonly pool: () => pg.Pool,
    /** This process's runner lock key (lib/db/runner-lock.ts), while it holds it: a lesson it takes dies with it. */
    private readonly runnerKey: () => Promise<string | null> = async () => null,
  ) {}

  /**
   * A lesson for the reply, taken by this process for `leaseMs`: false when
   * the reply has one already, or learns nothing (a temporary chat, memory
   * off for its owner).
   */
  async enqueue({ owner, threadId, replyId }: Lesson, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.pool().query(
      `INSERT INTO memory_lessons (thread_id, reply_id, owner, attempts, taken_until, runner)
       SELECT $1, $2, $3, 1, now() + make_interval(secs => $4::float8 / 1000), $5
        WHERE coalesce((SELECT enabled FROM memory_settings WHERE owner = $3), true)
          AND NOT EXISTS (SELECT 1 FROM temporary_threads WHERE thread_id = $1)
       ON CONFLICT (thread_id, reply_id) DO NOTHING`,
      [threadId, replyId, owner, leaseMs, await this.runnerKey()],
    );
    return rowCount === 1;
  }

  /**
   * Due lessons for this process to run: ones whose taker's lease ran out or
   * whose taker's process died (its lock key is no longer held), taken with
   * SKIP LOCKED so two servers never take one. One taken `maxAttempts` times
   * already fails instead.
   */
  async takeDue(limit: number, leaseMs: number, maxAttempts: number): Promise<Lesson[]> {
    const { rows } = await this.pool().query<{ owner: string; thread_id: string; reply_id: string; attempts: number }>(
      `WITH due AS (
         SELECT thread_id, reply_id FROM memory_lessons
          WHERE state = 'due' AND (taken_until < now() OR (runner IS NOT NULL AND NOT threadline_runner_alive(runner)))
          ORDER BY taken_until LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE memory_lessons l
          SET attempts = l.attempts + 1, taken_until = now() + make_interval(secs => $2::float8 / 1000), runner = $3,
              state = CASE WHEN l.attempts >= $4 THEN 'failed' ELSE 'due' END,
              outcome = CASE WHEN l.attempts >= $4 THEN 'failed: tried ' || l.attempts || ' times' ELSE l.outcome END
         FROM due WHERE l.thread_id = due.thread_id AND l.reply_id = due.reply_id
       RETURNING l.owner, l.thread_id, l.reply_id, l.attempts`,
      [limit, leaseMs, await this.runnerKey(), maxAttempts],
    );
    return rows.filter((row) => row.attempts <= maxAttempts).map((row) => ({ owner: row.owner, threadId: row.thread_id, replyId: row.reply_id }));
  }

  /**
   * Whether the lesson is `claimant`'s to run (an Inngest event's id): the
   * first to claim it keeps it, so an event delivered twice asks the model once.
   */
  async claim({ owner, threadId, replyId }: Lesson, claimant: string): Promise<boolean> {
    const { rows } = await this.pool().query<{ claimant: string | null }>(
      `INSERT INTO memory_lessons (thread_id, reply_id, owner, claimant) SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM threads WHERE id = $1)
       ON CONFLICT (thread_id, reply_id) DO UPDATE SET claimant = coalesce(memory_lessons.claimant, excluded.claimant)
       RETURNING claimant`,
      [threadId, replyId, owner, claimant],
    );
    return rows.length === 0 || rows[0].claimant === claimant;
  }

  /** Runs each step of the lesson once: a finished step's result is kept in its row, and a lesson taken over replays it. */
  steps({ threadId, replyId }: Lesson): StepRunner {
    return async <T>(id: string, work: () => Promise<T>): Promise<T> => {
      const { rows } = await this.pool().query<{ value: { v: T } | null }>(
        "SELECT steps -> $3 AS value FROM memory_lessons WHERE thread_id = $1 AND reply_id = $2",
        [threadId, replyId, id],
      );
      const kept = rows[0]?.value;
      if (kept) return kept.v;
      const value = await work();
      await this.pool().query("UPDATE memory_lessons SET steps = steps || jsonb_build_object($3::text, jsonb_build_object('v', $4::jsonb)) WHERE thread_id = $1 AND reply_id = $2", [
        threadId,
        replyId,
        id,
        JSON.stringify(value ?? null),
      ]);
      return value;
    };
  }

  /** A lesson that failed this time: taken again by any server's due work after `retryMs`. */
  async release({ threadId, replyId }: Lesson, error: string, retryMs: number): Promise<void> {
    await this.pool().query(
      `UPDATE memory_lessons SET outcome = left($3, 500), runner = NULL, taken_until = now() + make_interval(secs => $4::float8 / 1000)
        WHERE thread_id = $1 AND reply_id = $2 AND state = 'due'`,
      [threadId, replyId, `failed once: ${error}`, retryMs],
    );
  }

  /** What the lesson reads, read at once: the exchange the reply ends, and the owner's memories, the most recently used first. */
  async context({ owner, threadId, replyId }: Lesson): Promise<LessonContext> {
    const { rows: gate } = await this.pool().query<{ enabled: boolean; temporary: boolean; user_message_id: string | null }>(
      `SELECT coalesce((SELECT enabled FROM memory_settings WHERE owner = $1), true) AS enabled,
              EXISTS (SELECT 1 FROM temporary_threads WHERE thread_id = $2) AS temporary,
              (SELECT r.parent_message_id FROM messages r WHERE r.thread_id = t.id AND r.message_id = $3 AND r.part_index = 0) AS user_message_id
         FROM threads t WHERE t.id = $2 AND t.owner = $1`,
      [owner, threadId, replyId],
    );
    const thread = gate[0];
    if (!thread) return { skip: "the thread is gone" };
    if (!thread.enabled) return { skip: "memory is off for its owner" };
    if (thread.temporary) return { skip: "a temporary chat" };
    if (!thread.user_message_id) return { skip: "the reply answers no message" };
    const [texts, kept] = await Promise.all([
      this.pool().query<{ kind: string; text: string }>(
        `SELECT kind, left(string_agg(left(content, $5::int), '' ORDER BY part_index), CASE kind WHEN 'user' THEN $5::int ELSE $4::int END) AS text FROM messages
          WHERE thread_id = $1 AND ((message_id = $2 AND kind = 'user') OR (message_id = $3 AND kind = 'assistant'))
          GROUP BY kind`,
        [threadId, thread.user_message_id, replyId, LESSON_BOUNDS.assistantChars, LESSON_BOUNDS.userChars],
      ),
      this.pool().query<{ id: string; text: string }>(
        `SELECT id, text FROM memories WHERE owner = $1 AND state = 'active'
          ORDER BY coalesce(last_used_at, created_at) DESC, id LIMIT 200`,
        [owner],
      ),
    ]);
    const textOf = (kind: string) => texts.rows.find((row) => row.kind === kind)?.text ?? "";
    const user = textOf("user");
    if (!user.trim()) return { skip: "the message holds no words" };
    const memories: { id: string; text: string }[] = [];
    let chars = 0;
    for (const memory of kept.rows) {
      chars += memory.text.length + 60;
      if (chars > LESSON_BOUNDS.memoryChars) break;
      memories.push(memory);
    }
    return { exchange: { user, assistant: textOf("assistant").slice(0, LESSON_BOUNDS.assistantChars) }, userMessageId: thread.user_message_id, memories };
  }

  /**
   * Ends the lesson, storing what it learned, in one transaction under the
   * owner's lock: nothing when the lesson was done already. A fact already
   * kept is not added twice; one deleted from the same message is not added
   * again; an update or a delete reaches only the owner's memories the lesson
   * was shown. Past `max`, the oldest unused make room. Its outcome, in words.
   */
  async finish(lesson: Lesson, learned: { changes: MemoryChanges; userMessageId: string; shown: string[] } | { skip: string }, max: number): Promise<string> {
    const { owner, threadId, replyId } = lesson;
    return inTransaction(this.pool(), async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('memories'), hashtext($1))", [owner]);
      const { rows: open } = await tx.query<{ state: string }>(
        `INSERT INTO memory_lessons (thread_id, reply_id, owner, state) SELECT $1, $2, $3, 'due' WHERE EXISTS (SELECT 1 FROM threads WHERE id = $1)
         ON CONFLICT (thread_id, reply_id) DO UPDATE SET state = memory_lessons.state
         RETURNING state`,
        [threadId, replyId, owner],
      );
      if (open.length === 0) return "skipped: the thread is gone";
      if (open[0].state !== "due") return "done already";
      const outcome = "skip" in learned ? `skipped: ${learned.skip}` : await store(tx, owner, threadId, learned, max);
      await tx.query("UPDATE memory_lessons SET state = 'done', done_at = now(), outcome = left($3, 500), runner = NULL WHERE thread_id = $1 AND reply_id = $2", [
        threadId,
        replyId,
        outcome,
      ]);
      return outcome;
    });
  }
}

async function store(
  tx: pg.PoolClient,
  owner: string,
  threadId: string,
  { changes, userMessageId, shown }: { changes: MemoryChanges; userMessageId: string; shown: string[] },
  max: number,
): Promise<string> {
  const mayTouch = new Set(shown);
  const ids = (list: string[]) => list.filter((id) => UUID.test(id) && mayTouch.has(id));
  const deleted = (await forget(tx, owner, ids(changes.delete))).rowCount ?? 0;
  let updated = 0;
  for (const { id, text } of changes.update) {
    if (!ids([id]).length) continue;
    const { rowCount } = await tx.query("UPDATE memories SET text = $3, updated_at = now() WHERE id = $1 AND owner = $2 AND state = 'active'", [
      id,
      owner,
      text.slice(0, MAX_MEMORY_CHARS),
    ]);
    updated += rowCount ?? 0;
  }
  let added = 0;
  let evicted = 0;
  for (const text of changes.add) {
    const { rows } = await tx.query<{ known: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM memories WHERE owner = $1 AND state = 'active' AND ${folded("text")} = ${folded("$2")})
           OR EXISTS (SELECT 1 FROM memories WHERE owner = $1 AND state = 'deleted' AND source_message_id = $3 AND forgotten = ${folded("$2")}) AS known`,
      [owner, text, userMessageId],
    );
    if (rows[0].known) continue;
    const { rowCount } = await tx.query(
      `DELETE FROM memories WHERE id IN (
         SELECT id FROM memories WHERE owner = $1 AND state = 'active'
          ORDER BY coalesce(last_used_at, created_at), created_at, id
          LIMIT greatest(0, (SELECT count(*) FROM memories WHERE owner = $1 AND state = 'active') - $2 + 1))`,
      [owner, max],
    );
    evicted += rowCount ?? 0;
    await tx.query("INSERT INTO memories (id, owner, text, source_thread_id, source_message_id) VALUES (gen_random_uuid(), $1, $2, $3, $4)", [
      owner,
      text.slice(0, MAX_MEMORY_CHARS),
      threadId,
      userMessageId,
    ]);
    added++;
  }
  const said = [`learned ${added}`, `updated ${updated}`, `deleted ${deleted}`, ...(evicted ? [`evicted ${evicted} (the oldest unused, to stay within ${max})`] : [])];
  return said.join(", ");
}

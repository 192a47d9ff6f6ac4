import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { notFoundThread } from "@/lib/errors";
import { titleFromMessage } from "./title";
import { toColumns } from "@/lib/protocol/parts-codec";
import type { StoredMessage } from "@/lib/protocol/threads";
import { rowsToMessages, type PartRow } from "./rows";
import type { HistoryConfig, LifecycleHooks, OpenedTurn, SummaryMessage, SummaryStore, ThreadScope, TurnClaim, TurnStore } from "./types";

const PART_COLUMNS = "m.seq, m.message_id, m.kind, m.agent_name, m.content, m.content_escaped, m.status, m.data, m.created_at";

type Nullable<T> = { [K in keyof T]: T[K] | null };
/** What a hook of the adapter contract is given. */
type Args<K extends keyof LifecycleHooks> = Parameters<LifecycleHooks[K]>[0];
type SummaryArgs<K extends keyof SummaryStore> = Parameters<SummaryStore[K]>[0];
type TurnArgs<K extends keyof TurnStore> = Parameters<TurnStore[K]>[0];

/** The summary among a row's part columns (a LEFT JOIN leaves them null when there is none). */
function summaryFrom(row: Nullable<PartRow>): SummaryMessage | undefined {
  if (row.kind !== "system_event") return undefined;
  return rowsToMessages([row as PartRow])[0] as SummaryMessage;
}

// The rules of a turn's storage (the thread upsert, the claim, whether a turn
// is running, storing the user's message once) are database functions
// (migrations/1733356800000_turn-rules.sql); the hooks here call them and
// repeat none of their conditions.
/**
 * Stores threads and their messages in Postgres. Order within a thread comes
 * from threads.next_seq, taken under the thread's row lock, so it never
 * depends on a clock; the thread row is also what makes concurrent writers of
 * one thread queue up behind each other.
 */
export class PostgresHistoryAdapter implements Required<HistoryConfig> {
  readonly turns: TurnStore;
  readonly summaries: SummaryStore;

  constructor(private readonly pool: pg.Pool) {
    this.turns = new PostgresTurnStore(pool);
    this.summaries = new PostgresSummaryStore(pool);
  }

  async createThread({ owner, threadId }: ThreadScope & { threadId?: string }) {
    const id = threadId ?? randomUUID();
    // No row for another owner's thread. The thread's latest summary comes along in the same round trip.
    const { rows } = await this.pool.query<{ created: boolean; message_count: number } & Nullable<PartRow>>(
      `SELECT t.created, t.message_count, ${PART_COLUMNS}
         FROM threadline_upsert_thread($1, $2) t LEFT JOIN messages m ON m.thread_id = $1 AND m.seq = t.summary_seq`,
      [id, owner],
    );
    if (rows.length === 0) throw notFoundThread();
    const { created, message_count } = rows[0];
    return { threadId: id, created, messages: message_count, summary: summaryFrom(rows[0]) };
  }

  /**
   * The thread's parts, as messages, in conversation order: all of them, or
   * only the last `lastUserMessages` user messages and everything after each.
   * The window's start is found walking back over an index of user messages
   * only, so a window costs the same however long the thread is.
   */
  async get(
    { owner, threadId, lastUserMessages, fromSeq }: ThreadScope & { threadId: string; lastUserMessages?: number; fromSeq?: number },
    /** The thread page shows system messages (summaries) too; the model's history leaves them out. */
    { systemMessages = false }: { systemMessages?: boolean } = {},
  ): Promise<StoredMessage[]> {
    const { rows } = await this.pool.query<PartRow>(
      `SELECT ${PART_COLUMNS}
         FROM messages m JOIN threads t ON t.id = m.thread_id
        WHERE m.thread_id = $1 AND t.owner = $2
          AND ($5 OR m.kind <> 'system_event')
          AND m.seq >= greatest($4::bigint, (
                SELECT u.seq FROM messages u
                 WHERE $3::int IS NOT NULL AND u.thread_id = $1 AND u.kind = 'user'
                 ORDER BY u.seq DESC OFFSET $3::int - 1 LIMIT 1), 0)
        ORDER BY m.seq`,
      [threadId, owner, lastUserMessages ?? null, fromSeq ?? null, systemMessages],
    );
    return rowsToMessages(rows);
  }

  /**
   * The newest `limit` messages before `before` (a seq; all when unset), with
   * every part, system messages too, in order, and the seq to ask before for
   * the page that precedes them (null at the start of the thread). The page's
   * start is found walking back over messages' first parts only, so any page
   * of any thread costs the same.
   */
  async page({ owner, threadId, before, limit }: ThreadScope & { threadId: string; before?: number; limit: number }) {
    const { rows } = await this.pool.query<PartRow & { older: boolean }>(
      `WITH first AS (
         SELECT coalesce((
           SELECT m.seq FROM messages m
            WHERE m.thread_id = $1 AND m.part_index = 0 AND ($3::bigint IS NULL OR m.seq < $3)
            ORDER BY m.seq DESC OFFSET $4::int - 1 LIMIT 1), 0) AS seq
       )
       SELECT ${PART_COLUMNS},
              EXISTS (SELECT 1 FROM messages o WHERE o.thread_id = $1 AND o.seq < first.seq) AS older
         FROM messages m JOIN threads t ON t.id = m.thread_id, first
        WHERE m.thread_id = $1 AND t.owner = $2 AND m.seq >= first.seq AND ($3::bigint IS NULL OR m.seq < $3)
        ORDER BY m.seq`,
      [threadId, owner, before ?? null, limit],
    );
    const messages = rowsToMessages(rows);
    return { messages, olderBefore: rows[0]?.older ? messages[0].seq : null };
  }

  async appendUserMessage({ owner, threadId, turnId, message }: Args<"appendUserMessage">) {
    const { content, escaped } = toColumns("user", { type: "text", text: message.content });
    const { rows } = await this.pool.query<{ seq: string; turn_id: string | null }>(
      "SELECT seq, turn_id FROM threadline_append_user_message($1, $2, $3, $4, $5, $6, $7)",
      [threadId, owner, message.id, turnId, content, escaped, titleFromMessage(message.content)],
    );
    if (rows.length === 0) throw notFoundThread();
    // Stored by another turn: a duplicate. This turn's own row: a retried step, which goes on.
    return { duplicate: rows[0].turn_id !== turnId, seq: Number(rows[0].seq) };
  }

  async appendResults({ owner, threadId, reply, turn }: Args<"appendResults">): Promise<{ seq: number }> {
    if (reply.parts.length === 0) throw new Error("A reply without parts is not stored.");
    const columns = reply.parts.map((part) => toColumns("assistant", part));
    // One statement: it is its own transaction and one round trip. Parts
    // already stored (a retried step whose first try committed) are skipped;
    // the UPDATE locks the thread row and reserves seq numbers for the rest.
    const { rows } = await this.pool.query<{ seq: string }>(
      `WITH incoming AS (
         SELECT r.*, row_number() OVER (ORDER BY r.part_index) AS n
           FROM unnest($4::text[], $5::text[], $6::text[], $7::boolean[], $8::jsonb[])
                  WITH ORDINALITY AS r(kind, agent_name, content, escaped, data, part_index)
          WHERE NOT EXISTS (
            SELECT 1 FROM messages m WHERE m.thread_id = $1 AND m.message_id = $3 AND m.part_index = r.part_index - 1)
       ), reserved AS (
         UPDATE threads
            SET next_seq = next_seq + (SELECT count(*) FROM incoming),
                message_count = message_count + (SELECT count(*) FROM incoming WHERE part_index = 1),
                updated_at = now()
          WHERE id = $1 AND owner = $2
        RETURNING next_seq - (SELECT count(*) FROM incoming) AS first_seq
       ), finished AS (
         -- The turn that wrote it is done: a resend of its message gets this reply.
         UPDATE turns SET status = 'done', lease_until = NULL, updated_at = now()
          WHERE owner = $2 AND message_id = $10 AND turn_id = $11
       )
       INSERT INTO messages (thread_id, seq, message_id, part_index, kind, agent_name, content, content_escaped, data, status)
       SELECT $1, reserved.first_seq + incoming.n - 1, $3, incoming.part_index - 1, incoming.kind, incoming.agent_name,
              incoming.content, incoming.escaped, incoming.data, $9
         FROM reserved, incoming
       RETURNING seq`,
      [
        threadId,
        owner,
        reply.id,
        columns.map((c) => c.kind),
        columns.map((c) => c.agentName),
        columns.map((c) => c.content),
        columns.map((c) => c.escaped),
        columns.map((c) => JSON.stringify(c.data)),
        reply.status,
        turn?.messageId ?? null,
        turn?.turnId ?? null,
      ],
    );
    if (rows.length > 0) return { seq: Math.min(...rows.map((row) => Number(row.seq))) };
    // Nothing inserted: every part was there already, or the thread is not the owner's.
    const stored = await this.pool.query<{ seq: string }>(
      `SELECT m.seq FROM messages m JOIN threads t ON t.id = m.thread_id
        WHERE m.thread_id = $1 AND t.owner = $2 AND m.message_id = $3 AND m.part_index = 0`,
      [threadId, owner, reply.id],
    );
    if (stored.rows.length === 0) throw notFoundThread();
    return { seq: Number(stored.rows[0].seq) };
  }
}

/** The adapter's turns (see TurnStore): one turn per client message id, per owner. */
class PostgresTurnStore implements TurnStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * createThread, claimTurn and appendUserMessage in one round trip (the
   * database function threadline_open_turn), with the thread's latest summary.
   */
  async openTurn({ owner, threadId, messageId, turnId, message, leaseMs }: TurnArgs<"openTurn">): Promise<OpenedTurn> {
    const { content, escaped } = toColumns("user", { type: "text", text: message.content });
    const { rows } = await this.pool.query<
      { thread_id: string; created: boolean; message_count: number; claimed: boolean; running: boolean; user_seq: string | null } & Nullable<PartRow>
    >(
      `SELECT o.thread_id, o.created, o.message_count, o.claimed, o.running, o.user_seq, ${PART_COLUMNS}
         FROM threadline_open_turn($1, $2, $3, $4, $5, $6, $7, $8) o
         LEFT JOIN messages m ON m.thread_id = $1 AND m.seq = o.summary_seq`,
      [threadId, owner, messageId, turnId, content, escaped, titleFromMessage(message.content), leaseMs],
    );
    if (rows.length === 0) throw notFoundThread();
    const [row] = rows;
    return {
      threadId,
      created: row.created,
      messages: row.message_count,
      summary: summaryFrom(row),
      claim: claimFrom(row),
      userSeq: row.user_seq === null ? undefined : Number(row.user_seq),
    };
  }

  async claimTurn({ owner, threadId, messageId, turnId, leaseMs }: TurnArgs<"claimTurn">): Promise<TurnClaim> {
    const { rows } = await this.pool.query<{ thread_id: string; claimed: boolean; running: boolean }>(
      "SELECT thread_id, claimed, running FROM threadline_claim_turn($1, $2, $3, $4, $5)",
      [owner, messageId, threadId, turnId, leaseMs],
    );
    // No row: the message's turn went with its thread (deleted) between the claim's two statements.
    if (rows.length === 0) throw new Error(`The turn for message ${messageId} could not be claimed or found.`);
    return claimFrom(rows[0]);
  }

  async renewTurn({ owner, messageId, turnId, leaseMs }: TurnArgs<"renewTurn">): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE turns SET lease_until = now() + make_interval(secs => $4::float8 / 1000), updated_at = now()
        WHERE owner = $1 AND message_id = $2 AND turn_id = $3 AND status = 'running'`,
      [owner, messageId, turnId, leaseMs],
    );
    return (rowCount ?? 0) > 0;
  }

  async finishTurn({ owner, messageId, turnId, status }: TurnArgs<"finishTurn">): Promise<void> {
    await this.pool.query(
      `UPDATE turns SET status = $4, lease_until = NULL, updated_at = now()
        WHERE owner = $1 AND message_id = $2 AND turn_id = $3`,
      [owner, messageId, turnId, status],
    );
  }

  /** One turn's rows: from the user's message up to the next user message, found by the index of user messages. */
  async replyTo({ owner, threadId, messageId }: TurnArgs<"replyTo">) {
    const { rows } = await this.pool.query<PartRow>(
      `WITH asked AS (
         SELECT m.seq FROM messages m JOIN threads t ON t.id = m.thread_id
          WHERE m.thread_id = $1 AND t.owner = $2 AND m.message_id = $3 AND m.part_index = 0 AND m.kind = 'user'
       ), next AS (
         SELECT min(u.seq) AS seq FROM messages u, asked WHERE u.thread_id = $1 AND u.kind = 'user' AND u.seq > asked.seq
       )
       SELECT ${PART_COLUMNS} FROM messages m, asked, next
        WHERE m.thread_id = $1 AND m.seq >= asked.seq AND (next.seq IS NULL OR m.seq < next.seq) AND m.kind <> 'system_event'
        ORDER BY m.seq`,
      [threadId, owner, messageId],
    );
    const [message = null, reply = null] = rowsToMessages(rows);
    return { message, reply };
  }
}

function claimFrom(row: { thread_id: string; claimed: boolean; running: boolean }): TurnClaim {
  return row.claimed ? { claimed: true } : { claimed: false, threadId: row.thread_id, running: row.running };
}

/** The adapter's summaries (see SummaryStore): a compaction summary is a system message of the thread that threads.summary_seq points at. */
class PostgresSummaryStore implements SummaryStore {
  constructor(private readonly pool: pg.Pool) {}
  async latest({ owner, threadId }: SummaryArgs<"latest">): Promise<SummaryMessage | null> {
    const { rows } = await this.pool.query<PartRow>(
      `SELECT ${PART_COLUMNS}
         FROM threads t JOIN messages m ON m.thread_id = t.id AND m.seq = t.summary_seq
        WHERE t.id = $1 AND t.owner = $2`,
      [threadId, owner],
    );
    return rows.length === 0 ? null : (summaryFrom(rows[0]) ?? null);
  }

  async append({ owner, threadId, summary, after }: SummaryArgs<"append">) {
    const { kind, content, escaped, data } = toColumns("system", { type: "system-event", event: "compaction", ...summary });
    // One statement. The UPDATE locks the thread row; a compaction that waited
    // for it sees the summary the first one stored, no longer matches `after`,
    // and stores nothing. Neither the message count nor the activity time
    // moves: a summary is not something anyone said.
    const { rows } = await this.pool.query<{ seq: string }>(
      `WITH reserved AS (
         UPDATE threads SET next_seq = next_seq + 1, summary_seq = next_seq
          WHERE id = $1 AND owner = $2 AND summary_seq IS NOT DISTINCT FROM $3::bigint
         RETURNING summary_seq AS seq
       )
       INSERT INTO messages (thread_id, seq, message_id, part_index, kind, content, content_escaped, data)
       SELECT $1, reserved.seq, $4, 0, $5, $6, $7, $8 FROM reserved
       RETURNING seq`,
      [threadId, owner, after, summary.id, kind, content, escaped, JSON.stringify(data)],
    );
    return rows.length === 0 ? null : { seq: Number(rows[0].seq) };
  }
}

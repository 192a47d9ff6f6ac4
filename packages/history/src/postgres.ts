import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { notFoundThread, threadBusy } from "./errors";
import { titleFromMessage } from "./title";
import { filesColumn, toColumns } from "./codec";
import { isUuid } from "./uuid";
import type { StoredMessage } from "./messages";
import { PART_COLUMNS, rowsToMessages, summaryFrom, type Nullable, type PartRow } from "./rows";
import { openVersionTurn } from "./postgres-version-turn";
import { PostgresTitleStore } from "./postgres-titles";
import { PostgresApprovalStore } from "./postgres-approvals";
import type { ThreadOrigin } from "./thread-source";
import type {
  ApprovalStore,
  HistoryConfig,
  LeaseRenewal,
  LifecycleHooks,
  MessageVersions,
  OpenedTurn,
  StopRequest,
  SummaryMessage,
  SummaryStore,
  ThreadScope,
  ThreadsChanged,
  TitleStore,
  TurnClaim,
  TurnStore,
  VersionStore,
} from "./contract";

/** What a hook of the adapter contract is given. */
type Args<K extends keyof LifecycleHooks> = Parameters<LifecycleHooks[K]>[0];
type SummaryArgs<K extends keyof SummaryStore> = Parameters<SummaryStore[K]>[0];
type TurnArgs<K extends keyof TurnStore> = Parameters<TurnStore[K]>[0];
type VersionArgs<K extends keyof VersionStore> = Parameters<VersionStore[K]>[0];

// The rules of a turn's storage (the thread upsert, the claim, whether a turn
// is running, storing the user's message once) are database functions
// (db/functions/, one file each), and so are those of the versions tree
// (threadline_branch, threadline_select_version): every read follows the
// thread's active path (`m.active`), every write follows its end. The hooks
// here call them and repeat none of their conditions.
/** A thread made without saying where from: the chat page's. */
const WEB: ThreadOrigin = { source: "web", sourceId: null, sourceMetadata: null };

/**
 * Stores threads and their messages in Postgres. Order within a thread comes
 * from threads.next_seq, taken under the thread's row lock, so it never
 * depends on a clock; the thread row is also what makes concurrent writers of
 * one thread queue up behind each other.
 */
export class PostgresHistoryAdapter implements HistoryConfig {
  readonly turns: TurnStore;
  readonly summaries: SummaryStore;
  readonly versions: VersionStore;
  readonly titles: TitleStore;
  readonly approvals: ApprovalStore;

  constructor(
    private readonly pool: pg.Pool,
    private readonly changed: ThreadsChanged = () => {},
    /** This process's runner key (lib/db/runner-lock.ts), recorded with each turn it runs under a lease; none: the lease alone tells. */
    runner: RunnerKey = async () => null,
  ) {
    this.turns = new PostgresTurnStore(pool, changed, runner);
    this.summaries = new PostgresSummaryStore(pool);
    this.versions = new PostgresVersionStore(pool);
    this.titles = new PostgresTitleStore(pool, changed);
    this.approvals = new PostgresApprovalStore(pool, changed, runner);
  }

  async createThread({ owner, threadId, origin = WEB }: ThreadScope & { threadId?: string; origin?: ThreadOrigin }) {
    const id = threadId ?? randomUUID();
    // Threadline's ids are UUIDs, but a caller of another library (an AgentKit
    // app) may pass any string: one that cannot be a thread is not found, and
    // never reaches Postgres as a uuid it cannot parse (22P02).
    if (!isUuid(id)) throw notFoundThread();
    // No row for another owner's thread. The thread's latest summary comes along in the same round trip.
    const { rows } = await this.pool.query<{ created: boolean; message_count: number } & Nullable<PartRow>>(
      `SELECT t.created, t.message_count, ${PART_COLUMNS}
         FROM threadline_upsert_thread($1, $2, $3, $4, $5) t LEFT JOIN messages m ON m.thread_id = $1 AND m.seq = t.summary_seq`,
      [id, owner, origin.source, origin.sourceId, origin.sourceMetadata],
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
    { owner, threadId, lastUserMessages, fromSeq, untilSeq }: Args<"get">,
    /** The thread page shows system messages (summaries) too; the model's history leaves them out. */
    { systemMessages = false }: { systemMessages?: boolean } = {},
  ): Promise<StoredMessage[]> {
    if (!isUuid(threadId)) return [];
    // The window's first seq is worked out first, as a row of its own: joined
    // to it, the read is a range of the active path's index (thread, seq). As
    // a bound computed inside the filter, the planner could not see how few
    // rows it leaves, and scanned the whole table for a long thread.
    const { rows } = await this.pool.query<PartRow>(
      `WITH start AS MATERIALIZED (
         SELECT greatest($4::bigint, (
                  SELECT u.seq FROM messages u
                   WHERE $3::int IS NOT NULL AND u.thread_id = $1 AND u.kind = 'user' AND u.active AND ($6::bigint IS NULL OR u.seq <= $6)
                   ORDER BY u.seq DESC OFFSET $3::int - 1 LIMIT 1), 0) AS seq
       )
       SELECT ${PART_COLUMNS}
         FROM start, threads t
         JOIN messages m ON m.thread_id = t.id
        WHERE t.id = $1 AND t.owner = $2 AND m.active AND m.seq >= start.seq
          AND ($5 OR m.kind <> 'system_event')
          AND ($6::bigint IS NULL OR m.seq <= $6)
        ORDER BY m.seq`,
      [threadId, owner, lastUserMessages ?? null, fromSeq ?? null, systemMessages, untilSeq ?? null],
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
    if (!isUuid(threadId)) return { messages: [], olderBefore: null };
    const { rows } = await this.pool.query<PartRow & { older: boolean }>(
      `WITH first AS (
         SELECT coalesce((
           SELECT m.seq FROM messages m
            WHERE m.thread_id = $1 AND m.active AND m.part_index = 0 AND ($3::bigint IS NULL OR m.seq < $3)
            ORDER BY m.seq DESC OFFSET $4::int - 1 LIMIT 1), 0) AS seq
       )
       SELECT ${PART_COLUMNS},
              EXISTS (SELECT 1 FROM messages o WHERE o.thread_id = $1 AND o.active AND o.seq < first.seq) AS older
         FROM messages m JOIN threads t ON t.id = m.thread_id, first
        WHERE m.thread_id = $1 AND t.owner = $2 AND m.active AND m.seq >= first.seq AND ($3::bigint IS NULL OR m.seq < $3)
        ORDER BY m.seq`,
      [threadId, owner, before ?? null, limit],
    );
    const messages = rowsToMessages(rows);
    return { messages, olderBefore: rows[0]?.older ? messages[0].seq : null };
  }

  async appendUserMessage({ owner, threadId, turnId, message }: Args<"appendUserMessage">) {
    if (!isUuid(threadId)) throw notFoundThread();
    const { content, escaped } = toColumns("user", { type: "text", text: message.content });
    const { rows } = await this.pool.query<{ seq: string; turn_id: string | null }>(
      "SELECT seq, turn_id FROM threadline_append_user_message($1, $2, $3, $4, $5, $6, $7, $8)",
      [threadId, owner, message.id, turnId, content, escaped, titleFromMessage(message.content), filesColumn(message)],
    );
    if (rows.length === 0) throw notFoundThread();
    // Stored by another turn: a duplicate. This turn's own row: a retried step, which goes on.
    return { duplicate: rows[0].turn_id !== turnId, seq: Number(rows[0].seq) };
  }

  async appendResults({ owner, threadId, reply, turn, replaces }: Args<"appendResults">): Promise<{ seq: number; parentId: string | null }> {
    if (reply.parts.length === 0) throw new Error("A reply without parts is not stored.");
    if (!isUuid(threadId)) throw notFoundThread();
    const columns = reply.parts.map((part) => toColumns("assistant", part));
    // One call of threadline_append_reply: its own transaction and one round
    // trip. Parts already stored (a retried step whose first try committed)
    // are skipped; the thread's row lock orders it after any other writer.
    const { rows } = await this.pool.query<{ first_seq: string; parent_message_id: string | null }>(
      "SELECT first_seq, parent_message_id FROM threadline_append_reply($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
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
        replaces ?? null,
        reply.model ?? null,
        JSON.stringify(reply.usage ?? []),
      ],
    );
    if (rows.length === 0) throw notFoundThread();
    this.changed(owner, threadId);
    return { seq: Number(rows[0].first_seq), parentId: rows[0].parent_message_id };
  }
}

/** The session key of the process that runs a turn, or null when it has none. */
export type RunnerKey = () => Promise<string | null>;

/**
 * The adapter's turns (see TurnStore): one turn per client message id, per
 * owner. A turn that holds a lease runs in this process: it records the
 * process's runner key, and dies with the process's session as well as with
 * its lease. A turn without a lease (a durable run) records none: its run
 * outlives any one process.
 */
class PostgresTurnStore implements TurnStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly changed: ThreadsChanged,
    private readonly runner: RunnerKey,
  ) {}

  private runnerFor(leaseMs: number | null): Promise<string | null> {
    return leaseMs === null ? Promise.resolve(null) : this.runner();
  }

  /**
   * createThread, claimTurn and appendUserMessage in one round trip (the
   * database function threadline_open_turn), with the thread's latest summary.
   */
  async openTurn({ owner, threadId, messageId, turnId, message, leaseMs, replaces, origin = WEB }: TurnArgs<"openTurn">): Promise<OpenedTurn> {
    if (replaces !== undefined) {
      const runner = await this.runnerFor(leaseMs);
      const opened = await openVersionTurn(this.pool, { owner, threadId, messageId, turnId, message, leaseMs, replaces }, runner);
      if (opened.claim.claimed) this.changed(owner, threadId);
      return opened;
    }
    const { content, escaped } = toColumns("user", { type: "text", text: message.content });
    const runner = await this.runnerFor(leaseMs);
    const { rows } = await this.pool.query<
      {
        thread_id: string;
        created: boolean;
        message_count: number;
        claimed: boolean;
        running: boolean;
        user_seq: string | null;
        user_parent: string | null;
        busy: boolean;
        settled_reply: string | null;
      } & Nullable<PartRow>
    >(
      `SELECT o.thread_id, o.created, o.message_count, o.claimed, o.running, o.user_seq, o.user_parent, o.busy, o.settled_reply, ${PART_COLUMNS}
         FROM threadline_open_turn($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) o
         LEFT JOIN messages m ON m.thread_id = $1 AND m.seq = o.summary_seq`,
      [
        threadId, owner, messageId, turnId, content, escaped, titleFromMessage(message.content), leaseMs, runner,
        origin.source, origin.sourceId, origin.sourceMetadata, filesColumn(message),
      ],
    );
    if (rows.length === 0) throw notFoundThread();
    const [row] = rows;
    // Another message's turn runs in the thread, in this process or any other.
    if (row.busy) throw threadBusy();
    if (row.claimed) this.changed(owner, threadId);
    return {
      threadId,
      created: row.created,
      messages: row.message_count,
      summary: summaryFrom(row),
      claim: claimFrom(row),
      userSeq: row.user_seq === null ? undefined : Number(row.user_seq),
      ...(row.user_seq === null ? {} : { userParentId: row.user_parent }),
      ...(row.settled_reply === null ? {} : { settledReply: row.settled_reply }),
    };
  }

  async claimTurn({ owner, threadId, messageId, turnId, leaseMs }: TurnArgs<"claimTurn">): Promise<TurnClaim> {
    const runner = await this.runnerFor(leaseMs);
    const { rows } = await this.pool.query<{ thread_id: string; claimed: boolean; running: boolean; busy: boolean }>(
      "SELECT thread_id, claimed, running, busy FROM threadline_claim_turn($1, $2, $3, $4, $5, $6)",
      [owner, messageId, threadId, turnId, leaseMs, runner],
    );
    // No row: the message's turn went with its thread (deleted) between the claim's two statements.
    if (rows.length === 0) throw new Error(`The turn for message ${messageId} could not be claimed or found.`);
    // Its own turn died, and meanwhile another message's turn took the thread: one turn per thread holds for a duplicate too.
    if (rows[0].busy) throw threadBusy();
    if (rows[0].claimed) this.changed(owner, threadId);
    return claimFrom(rows[0]);
  }

  /** The lease, and the runner key held now: one taken again under a new key, or none while the process's connection is down (the lease alone). */
  async renewTurn({ owner, messageId, turnId, leaseMs }: TurnArgs<"renewTurn">): Promise<LeaseRenewal> {
    const runner = await this.runner();
    const { rows } = await this.pool.query<{ stop_requested: boolean }>(
      "SELECT stop_requested FROM threadline_renew_turn($1, $2, $3, $4, $5)",
      [owner, messageId, turnId, leaseMs, runner],
    );
    return { held: rows.length > 0, stopRequested: rows[0]?.stop_requested ?? false };
  }

  /** threadline_request_stop (db/functions/threadline_request_stop.sql): recorded, and NOTIFY to every app process. */
  async requestStop({ owner, threadId }: TurnArgs<"requestStop">): Promise<StopRequest> {
    const { rows } = await this.pool.query<{ turn_id: string | null; settled_reply: string | null }>(
      "SELECT turn_id, settled_reply FROM threadline_request_stop($1, $2)",
      [threadId, owner],
    );
    const settled = rows.flatMap((row) => row.settled_reply ?? []);
    if (settled.length > 0) this.changed(owner, threadId);
    return { turns: rows.flatMap((row) => row.turn_id ?? []), settled };
  }

  async stopRequested({ owner, messageId, turnId }: TurnArgs<"stopRequested">): Promise<boolean> {
    const { rows } = await this.pool.query<{ stop_requested: boolean }>(
      `SELECT coalesce(stop_requested_turn = turn_id, false) AS stop_requested FROM turns
        WHERE owner = $1 AND message_id = $2 AND turn_id = $3 AND status = 'running'`,
      [owner, messageId, turnId],
    );
    return rows[0]?.stop_requested ?? false;
  }

  async finishTurn({ owner, messageId, turnId, status }: TurnArgs<"finishTurn">): Promise<void> {
    // threadline_finish_turn: a failed turn whose message is answered all the same counts as done.
    const { rows } = await this.pool.query<{ thread_id: string }>("SELECT thread_id FROM threadline_finish_turn($1, $2, $3, $4)", [
      owner,
      messageId,
      turnId,
      status,
    ]);
    for (const { thread_id } of rows) this.changed(owner, thread_id);
  }

  /** One turn's rows (threadline_reply_to): the message and its reply; off the path, the reply chosen beneath it. */
  async replyTo({ owner, threadId, messageId }: TurnArgs<"replyTo">) {
    const { rows } = await this.pool.query<PartRow>(`SELECT ${PART_COLUMNS} FROM threadline_reply_to($1, $2, $3) m ORDER BY m.seq`, [
      threadId,
      owner,
      messageId,
    ]);
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
    if (!isUuid(threadId)) return null;
    const { rows } = await this.pool.query<PartRow>(
      `SELECT ${PART_COLUMNS}
         FROM threads t JOIN messages m ON m.thread_id = t.id AND m.seq = t.summary_seq
        WHERE t.id = $1 AND t.owner = $2`,
      [threadId, owner],
    );
    return rows.length === 0 ? null : (summaryFrom(rows[0]) ?? null);
  }

  async append({ owner, threadId, summary, after, usage }: SummaryArgs<"append">) {
    const { kind, content, escaped, data } = toColumns("system", { type: "system-event", event: "compaction", ...summary });
    // threadline_append_summary stores it only while the thread's latest
    // summary is still `after` (of two compactions one lands) and what it
    // stands for is still on the active path.
    // What writing it spent rides on the same statement, kept whether or not the summary lands.
    const { rows } = await this.pool.query<{ seq: string }>(
      `WITH spent AS (
         INSERT INTO model_usage (id, thread_id, message_id, purpose, model, input_tokens, output_tokens, cached_tokens, reasoning_tokens)
         SELECT u.id, t.id, $4, 'summary', u.model, u."inputTokens", u."outputTokens", u."cachedTokens", u."reasoningTokens"
           FROM threads t, jsonb_to_record($9::jsonb) AS u(id uuid, model text, "inputTokens" bigint, "outputTokens" bigint, "cachedTokens" bigint, "reasoningTokens" bigint)
          WHERE t.id = $1 AND t.owner = $2 AND $9::jsonb IS NOT NULL
         ON CONFLICT (id) DO NOTHING
       )
       SELECT seq FROM threadline_append_summary($1, $2, $3, $4, $5, $6, $7, $8)`,
      [threadId, owner, after, summary.id, kind, content, escaped, JSON.stringify(data), usage ? JSON.stringify(usage) : null],
    );
    return rows.length === 0 ? null : { seq: Number(rows[0].seq) };
  }
}

/**
 * The adapter's versions (see VersionStore): messages.parent_message_id, chosen
 * and active, kept by the database functions threadline_branch and
 * threadline_select_version.
 */
class PostgresVersionStore implements VersionStore {
  constructor(private readonly pool: pg.Pool) {}

  async branch({ owner, threadId, messageId }: VersionArgs<"branch">) {
    const { rows } = await this.pool.query<{ branched: boolean; parent_message_id: string | null }>(
      "SELECT branched, parent_message_id FROM threadline_branch($1, $2, $3)",
      [threadId, owner, messageId],
    );
    return rows.length === 0 ? null : { branched: rows[0].branched, parentId: rows[0].parent_message_id };
  }

  async select({ owner, threadId, messageId }: VersionArgs<"select">) {
    const { rows } = await this.pool.query("SELECT selected FROM threadline_select_version($1, $2, $3)", [threadId, owner, messageId]);
    return rows.length > 0;
  }

  /**
   * Each message of the path with its parent's other children. Only a parent
   * with a child off the path has versions, so the search starts from those
   * (messages_off_path_idx: as many as regenerates and edits, not messages),
   * and a long thread costs what a short one does.
   */
  async versions({ owner, threadId }: VersionArgs<"versions">): Promise<MessageVersions[]> {
    const { rows } = await this.pool.query<{ message_id: string; versions: string[] }>(
      `WITH forks AS (
         SELECT DISTINCT o.parent_message_id AS parent
           FROM messages o JOIN threads t ON t.id = o.thread_id AND t.owner = $2
          WHERE o.thread_id = $1 AND NOT o.active AND o.part_index = 0
       )
       SELECT max(c.message_id) FILTER (WHERE c.active) AS message_id, array_agg(c.message_id ORDER BY c.seq) AS versions
         FROM forks f
         -- A parent's children by messages_children_idx (an equality, or IS NULL for first messages: never an OR).
         CROSS JOIN LATERAL (
           SELECT m.message_id, m.seq, m.active FROM messages m
            WHERE m.thread_id = $1 AND m.part_index = 0 AND m.parent_message_id = f.parent
           UNION ALL
           SELECT m.message_id, m.seq, m.active FROM messages m
            WHERE f.parent IS NULL AND m.thread_id = $1 AND m.part_index = 0 AND m.parent_message_id IS NULL
         ) c
        GROUP BY f.parent
       HAVING count(*) FILTER (WHERE c.active) = 1 AND count(*) > 1
        ORDER BY min(c.seq) FILTER (WHERE c.active)`,
      [threadId, owner],
    );
    return rows.map((row) => ({ messageId: row.message_id, versions: row.versions, position: row.versions.indexOf(row.message_id) + 1 }));
  }
}

import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { inTransaction } from "@/lib/db/transaction";
import { AppError, notFoundThread } from "@threadline/history/errors";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import type { ThreadsChanged } from "@threadline/history/contract";
import { UNTITLED_THREAD } from "@threadline/history/title";
import { textOf } from "@threadline/history/parts";
import { timelineOf } from "@/lib/protocol/parts-codec";
import { threadsCursor } from "@/lib/protocol/cursors";
import type { PendingTurn } from "@/lib/protocol/chat";
import type { ExportedDocument, ExportedFile, ExportedMessage, ThreadExport } from "@/lib/protocol/thread-export";
import { decodeImportedFile, type DecodedFile } from "@/lib/files/imported-file";
import type { Db, ExportSection, ImportContext, ThreadRef, TimelineSection, Wing } from "@/lib/wing";
import type { ThreadSource } from "@threadline/history/thread-source";
import { PART_COLUMNS, rowsToMessages, type PartRow } from "@threadline/history/rows";
import { databaseRefusal } from "@/lib/db/refusal";
import { treeOf, type ThreadSize, type VersionTree } from "./export";
import { forkTitle } from "./fork-title";
import { ImportBatches } from "./import-rows";
import type {
  FlatMessage,
  HistoryMessage,
  MessageVersions,
  SearchResult,
  StoredMessage,
  ThreadListItem,
  ThreadPage,
  ThreadRead,
  ThreadSummary,
  TimelineEntry,
} from "@/lib/protocol/threads";

interface ThreadRow {
  id: string;
  title: string | null;
  created_at: Date;
  updated_at: Date;
  updated_at_exact: string;
  message_count: number;
  source: ThreadSource;
  source_id: string | null;
  source_metadata: Record<string, unknown> | null;
  model: string | null;
}

const THREAD_COLUMNS = "id, title, created_at, updated_at, updated_at::text AS updated_at_exact, message_count, source, source_id, source_metadata, model";

function toSummary(row: ThreadRow): ThreadSummary {
  return {
    id: row.id,
    title: row.title ?? UNTITLED_THREAD,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    messageCount: row.message_count,
    source: row.source,
    sourceId: row.source_id,
    sourceMetadata: row.source_metadata,
    model: row.model,
  };
}

interface ListedRow extends ThreadRow {
  generating: boolean;
  last_read_at: Date | null;
  last_reply_at: Date | null;
  unseen: boolean;
  /** The wings' columns (ListedColumn), by their place in the list. */
  [wingColumn: `w${number}`]: unknown;
}

/** Whether the thread's latest reply (LATEST_REPLY) came after the owner last read it. */
const UNSEEN = `latest.created_at IS NOT NULL AND latest.created_at > coalesce(t.last_read_at, '-infinity')`;

// Each is one index probe per listed thread, made only for the rows the page
// returns: a running turn by the partial index of unfinished turns
// (turns_thread_idx), the thread's latest message by (thread_id, seq) read
// backwards; then each wing's column. A summary (system_event) is no message
// of the conversation.
const LIST_COLUMNS = `t.id, t.title, t.created_at, t.updated_at, t.updated_at::text AS updated_at_exact, t.message_count, t.last_read_at,
  t.source, t.source_id, t.source_metadata, t.model,
  EXISTS (SELECT 1 FROM turns tu
           WHERE tu.thread_id = t.id AND tu.status <> 'done' AND threadline_turn_running(tu)) AS generating,
  latest.created_at AS last_reply_at,
  ${UNSEEN} AS unseen`;
const LATEST_REPLY = `LEFT JOIN LATERAL (
    SELECT CASE WHEN m.kind <> 'user' THEN m.created_at END AS created_at
      FROM messages m WHERE m.thread_id = t.id AND m.active AND m.kind <> 'system_event'
     ORDER BY m.seq DESC LIMIT 1) latest ON true`;

function decodeCursor(cursor: string): [string, string] {
  const place = threadsCursor.decode(cursor);
  if (place === null) throw new AppError("bad_request:cursor", "The cursor is not one this server handed out.");
  return place;
}

export class ThreadRepository {
  private readonly lives: NonNullable<Wing["thread"]>[];
  private readonly listed: { column: string; item: (row: ListedRow) => Partial<ThreadListItem>; onThread: boolean }[];

  /**
   * `wings`: whose hooks take part in the thread's life (lib/wing.ts; the
   * app's are lib/wings.ts's, handed in so that a wing may read threads);
   * `history`: the app's one adapter, which the thread's reads go through (one
   * of its own when none is given).
   */
  constructor(
    private readonly pool: pg.Pool,
    wings: readonly Wing[],
    private readonly changed: ThreadsChanged = () => {},
    private readonly history: PostgresHistoryAdapter = new PostgresHistoryAdapter(pool, changed),
  ) {
    this.lives = wings.flatMap((wing) => (wing.thread ? [wing.thread] : []));
    this.listed = this.lives.flatMap((life) => (life.listed ? [life.listed] : [])).map((listed, index) => ({
      column: `${listed.sql} AS w${index}`,
      item: (row: ListedRow) => listed.item(row[`w${index}`]),
      onThread: listed.onThread === true,
    }));
  }

  /** Runs `work` in one transaction on a connection of its own: whole or not at all. */
  private transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  private toListItem(row: ListedRow): ThreadListItem {
    const item: ThreadListItem = {
      ...toSummary(row),
      hasActiveGeneration: row.generating,
      lastReadAt: row.last_read_at?.toISOString() ?? null,
      lastReplyAt: row.last_reply_at?.toISOString() ?? null,
      unseen: row.unseen,
      reminders: [],
      reminderCount: 0,
    };
    return Object.assign(item, ...this.listed.map((listed) => listed.item(row)));
  }

  /** An owner's threads with at least one message, most recent activity first, with whether each is generating or has an unseen reply. */
  async list(owner: string, { limit, cursor, source }: { limit: number; cursor?: string; source?: ThreadSource }): Promise<ThreadPage> {
    const params: unknown[] = [owner, limit + 1];
    let after = "";
    if (cursor) {
      const [updatedAt, id] = decodeCursor(cursor);
      params.push(updatedAt, id);
      after = `AND (t.updated_at, t.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
    }
    let from = "";
    if (source) {
      params.push(source);
      from = `AND t.source = $${params.length}`;
    }
    const { rows } = await this.pool.query<ListedRow>(
      `SELECT ${[LIST_COLUMNS, ...this.listed.map((listed) => listed.column)].join(", ")} FROM threads t ${LATEST_REPLY}
        WHERE t.owner = $1 AND t.message_count > 0 ${after} ${from}
        ORDER BY t.updated_at DESC, t.id DESC
        LIMIT $2`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      threads: page.map((row) => this.toListItem(row)),
      // updated_at as Postgres prints it: a JS Date would drop the microseconds.
      nextCursor: rows.length > limit && last ? threadsCursor.encode([last.updated_at_exact, last.id]) : null,
    };
  }

  /** The thread, with what the wings' list columns that are also the thread's say of it (a temporary chat). */
  async get(owner: string, id: string): Promise<ThreadSummary & Partial<ThreadListItem>> {
    const listed = this.listed.filter((column) => column.onThread);
    const { rows } = await this.pool.query<ThreadRow & ListedRow>(
      `SELECT ${[THREAD_COLUMNS, ...listed.map((column) => column.column)].join(", ")} FROM threads t WHERE t.id = $1 AND t.owner = $2`,
      [id, owner],
    );
    if (rows.length === 0) throw notFoundThread();
    return Object.assign(toSummary(rows[0]), ...listed.map((column) => column.item(rows[0])));
  }

  /** The user's title: the model's never replaces it (packages/history/src/postgres-titles.ts). */
  async rename(owner: string, id: string, title: string): Promise<ThreadSummary> {
    const { rows } = await this.pool.query<ThreadRow>(
      `UPDATE threads SET title = $3, title_source = 'user' WHERE id = $1 AND owner = $2 RETURNING ${THREAD_COLUMNS}`,
      [id, owner, title],
    );
    if (rows.length === 0) throw notFoundThread();
    this.changed(owner, id);
    return toSummary(rows[0]);
  }

  /**
   * The owner has seen the thread as it is now: its replies so far are no
   * longer unseen. Not its activity: the list keeps its order.
   */
  async markRead(owner: string, id: string): Promise<ThreadRead> {
    // Marked only when a reply was unseen: a change is news to every tab of
    // the owner (the trigger's NOTIFY), and each tab that opens a thread marks
    // it, so a mark that changes nothing would have all the others refetch.
    const { rows } = await this.pool.query<{ last_read_at: Date; marked: boolean }>(
      `WITH before AS (
         SELECT t.id, t.last_read_at, t.last_read_at IS NULL OR (${UNSEEN}) AS unseen
           FROM threads t ${LATEST_REPLY}
          WHERE t.id = $1 AND t.owner = $2),
       marked AS (
         UPDATE threads t SET last_read_at = now() FROM before
          WHERE t.id = before.id AND before.unseen
         RETURNING t.last_read_at)
       SELECT coalesce((SELECT last_read_at FROM marked), before.last_read_at) AS last_read_at, before.unseen AS marked FROM before`,
      [id, owner],
    );
    if (rows.length === 0) throw notFoundThread();
    if (rows[0].marked) this.changed(owner, id);
    return { lastReadAt: rows[0].last_read_at.toISOString() };
  }

  /** Deletes the thread, and with it what each wing keeps of it, in one transaction. */
  async delete(owner: string, id: string): Promise<void> {
    await this.transaction(async (tx) => {
      const { rows } = await tx.query("SELECT 1 FROM threads WHERE id = $1 AND owner = $2 FOR UPDATE", [id, owner]);
      if (rows.length === 0) throw notFoundThread();
      for (const life of this.lives) await life.delete?.(tx, { owner, threadId: id });
      await tx.query("SELECT threadline_delete_thread($1, $2)", [id, owner]);
    });
    this.changed(owner, id);
  }

  /**
   * A new thread of the owner's holding the thread's active path up to and
   * including `messageId`, every message under a new id, titled the
   * source's title + " (fork)" as the user's title (the model never renames
   * it), with what each wing copies of that path, in one transaction: whole
   * or not at all. 404 for another owner's thread or a message that is not on
   * the active path.
   */
  async fork(owner: string, id: string, messageId: string): Promise<ThreadSummary> {
    const { rows: titles } = await this.pool.query<{ title: string | null }>("SELECT title FROM threads WHERE id = $1 AND owner = $2", [id, owner]);
    if (titles.length === 0) throw notFoundThread();
    const forkId = randomUUID();
    await this.transaction(async (tx) => {
      const { rows } = await tx.query<{ forked: boolean }>("SELECT forked FROM threadline_fork_thread($1, $2, $3, $4, $5)", [
        id,
        owner,
        messageId,
        forkId,
        forkTitle(titles[0].title),
      ]);
      if (rows.length === 0) throw notFoundThread();
      if (!rows[0].forked) {
        throw new AppError("not_found:message", "That message is not in the thread as it is shown (another version may be selected), so there is nothing to fork at.");
      }
      for (const life of this.lives) await life.fork?.(tx, { owner, source: id, fork: forkId });
      await tx.query("SELECT threadline_recount($1)", [forkId]);
    });
    this.changed(owner, forkId);
    return this.get(owner, forkId);
  }

  /** How much the thread holds, every version counted (what an export of it must fit); 404 if it is not the owner's. */
  async size(owner: string, id: string): Promise<ThreadSize> {
    const { rows } = await this.pool.query<{ owned: boolean; messages: number; parts: number; content_bytes: string }>(
      `SELECT EXISTS (SELECT 1 FROM threads WHERE id = $1 AND owner = $2) AS owned,
              count(*) FILTER (WHERE m.part_index = 0)::int AS messages, count(*)::int AS parts,
              coalesce(sum(octet_length(m.content)), 0)::text AS content_bytes
         FROM messages m WHERE m.thread_id = $1`,
      [id, owner],
    );
    if (!rows[0].owned) throw notFoundThread();
    return { messages: rows[0].messages, parts: rows[0].parts, contentBytes: Number(rows[0].content_bytes) };
  }

  /** Every version of every message of the thread with all its parts, oldest first, and each wing's sections; 404 if it is not the owner's. */
  async versionTree(owner: string, id: string): Promise<VersionTree> {
    const { rows: threads } = await this.pool.query<Pick<ThreadRow, "title" | "created_at" | "updated_at" | "source" | "source_id" | "source_metadata">>(
      "SELECT t.title, t.created_at, t.updated_at, t.source, t.source_id, t.source_metadata FROM threads t WHERE t.id = $1 AND t.owner = $2",
      [id, owner],
    );
    if (threads.length === 0) throw notFoundThread();
    const { rows } = await this.pool.query<PartRow & { chosen: boolean }>(
      `SELECT ${PART_COLUMNS}, m.chosen FROM messages m WHERE m.thread_id = $1 ORDER BY m.seq`,
      [id],
    );
    // A message's parts are consecutive seqs, so its first row stands for it.
    const first = new Map(rows.map((row) => [row.message_id, row] as const).reverse());
    const messages = rowsToMessages(rows).map((message): ExportedMessage => {
      const row = first.get(message.id)!;
      const { id: messageId, parentId, role, parts, status, createdAt, seq, model } = message;
      return { id: messageId, parentId: parentId ?? null, role, parts, status, createdAt, chosen: row.chosen, seq, ...(model ? { model } : {}) };
    });
    const thread: ThreadRef = { owner, threadId: id };
    const sections: ExportSection[] = [];
    for (const life of this.lives) if (life.export) sections.push(await life.export(this.pool, thread, messages));
    const [t] = threads;
    const origin = { source: t.source, sourceId: t.source_id, sourceMetadata: t.source_metadata };
    return treeOf(
      { title: t.title, createdAt: t.created_at.toISOString(), updatedAt: t.updated_at.toISOString(), ...origin },
      messages.map((message) => Object.assign(message, ...sections.map((section) => section.message?.(message) ?? {}))),
      sections,
    );
  }

  /** A new thread of the owner's from a whole file in memory (checked with threadExportSchema); see importMessages. */
  async import(owner: string, file: Pick<ThreadExport, "thread" | "messages" | "files" | "documents">): Promise<ThreadSummary> {
    return this.importMessages(owner, file.thread, async (add, addFile, addDocument) => {
      for (const each of file.files ?? []) {
        const decoded = await decodeImportedFile(each, Number.MAX_SAFE_INTEGER);
        if ("refused" in decoded) throw new AppError("bad_request:validation", `files: ${each.name} ${decoded.refused}`);
        await addFile(each, decoded);
      }
      for (const message of file.messages) await add(message);
      for (const document of file.documents ?? []) await addDocument(document);
    });
  }

  /**
   * A new thread of the owner's from a file's messages as `feed` hands them
   * to `add`, checked and in file order (lib/threads/import-file.ts):
   * every version, under new ids, the chosen ones making its active path,
   * its title the user's; the file's other sections go to the wings that
   * keep them (lib/wing.ts). Written in batches (threadline_import_parts) in
   * one transaction: a failure, the database's or `feed`'s, leaves nothing
   * behind. A value the database refuses is the file's fault: a 400.
   */
  async importMessages(
    owner: string,
    thread: ThreadExport["thread"],
    feed: (
      add: (message: ExportedMessage) => Promise<void>,
      addFile: (file: ExportedFile, decoded: DecodedFile) => Promise<void>,
      addDocument: (document: ExportedDocument) => Promise<void>,
    ) => Promise<void>,
  ): Promise<ThreadSummary> {
    const id = randomUUID();
    const batches = new ImportBatches();
    try {
      await this.transaction(async (tx) => {
        const context: ImportContext = { tx, owner, threadId: id, newMessageId: (fileId) => batches.newIdOf(fileId) };
        const write = async () => {
          const r = batches.take();
          if (!r) return;
          await tx.query("SELECT threadline_import_parts($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb[], $10, $11, $12, $13, $14, $15)", [
            id, r.seqs, r.messageIds, r.partIndexes, r.kinds, r.agents, r.contents, r.escaped, r.data, r.statuses, r.createdAts, r.parents, r.chosen, r.active, r.models,
          ]);
        };
        // Where the file's thread came from stays; a file that does not say came from a file.
        await tx.query(
          "INSERT INTO threads (id, owner, title, title_source, created_at, next_seq, source, source_id, source_metadata) VALUES ($1, $2, $3, 'user', $4, 1, $5, $6, $7)",
          [id, owner, thread.title, thread.createdAt, thread.source ?? "import", thread.sourceId ?? null, thread.sourceMetadata ?? null],
        );
        const documents: ExportedDocument[] = [];
        await feed(
          async (message) => {
            if (batches.add(message)) await write();
          },
          // The file's files come before the messages that name them, which are rewritten to their new ids.
          async (file, decoded) => {
            for (const life of this.lives) {
              if (life.importFile) batches.fileIds.set(file.id, await life.importFile(context, file, decoded));
            }
          },
          async (document) => void documents.push(document),
        );
        await write();
        for (const life of this.lives) await life.importAfter?.(context, { documents, feedback: batches.feedback });
        await tx.query("SELECT threadline_import_finish($1)", [id]);
      });
    } catch (error) {
      // A value of the file the database cannot hold (a date before year 1, say) is the file's fault, not the server's.
      const refusal = databaseRefusal(error);
      if (refusal) throw new AppError("bad_request:import", `The file could not be imported: ${refusal}. Nothing was stored.`, { cause: error });
      throw error;
    }
    this.changed(owner, id);
    return this.get(owner, id);
  }

  /** Every message of the thread with all its parts, in conversation order; 404 if it is not the owner's. */
  async messages(owner: string, id: string): Promise<StoredMessage[]> {
    await this.get(owner, id);
    return this.history.get({ owner, threadId: id }, { systemMessages: true });
  }

  /**
   * The thread's latest turn that has not finished well: still running (its
   * runner is alive and its lease live, or a durable run holds it) or not answered (it
   * failed, or its runner died), of a message on the active path. Null when
   * every such turn is done.
   */
  async pendingTurn(owner: string, id: string): Promise<PendingTurn | null> {
    const { rows } = await this.pool.query<{ message_id: string; live: boolean }>(
      `SELECT tu.message_id, threadline_turn_running(tu) AS live
         FROM turns tu
        WHERE tu.thread_id = $1 AND tu.owner = $2 AND tu.status <> 'done'
          -- A message a later version replaced is no longer waiting for anything.
          AND EXISTS (SELECT 1 FROM messages m
                       WHERE m.thread_id = tu.thread_id AND m.message_id = tu.message_id AND m.part_index = 0 AND m.active)
        ORDER BY tu.updated_at DESC LIMIT 1`,
      [id, owner],
    );
    return rows.length === 0 ? null : { messageId: rows[0].message_id, state: rows[0].live ? "running" : "interrupted" };
  }

  /** A page of the thread: the newest messages before a place, oldest first (see PostgresHistoryAdapter.page), as the wings add to it; 404 if it is not the owner's. */
  async page(owner: string, id: string, options: { before?: number; limit: number }): Promise<{ messages: HistoryMessage[]; olderBefore: number | null }> {
    const page = await this.history.page({ owner, threadId: id, ...options });
    // An empty page is a thread with nothing before the cursor, or no thread of this owner's.
    if (page.messages.length === 0) await this.get(owner, id);
    let messages: HistoryMessage[] = page.messages;
    for (const life of this.lives) if (life.page) messages = await life.page(this.pool, id, messages);
    return { ...page, messages };
  }

  /** The messages of the thread's active path that have other versions ("2 / 3"); 404 if it is not the owner's. */
  async versions(owner: string, id: string): Promise<MessageVersions[]> {
    await this.get(owner, id);
    return this.history.versions.versions({ owner, threadId: id });
  }

  /**
   * Puts a version of a message on the thread's active path (with the choices
   * below it as they were); 404 if the thread is not the owner's or holds no such message.
   */
  async selectVersion(owner: string, id: string, messageId: string): Promise<void> {
    await this.get(owner, id);
    const selected = await this.history.versions.select({ owner, threadId: id, messageId });
    if (!selected) throw new AppError("not_found:message", "Message not found.");
  }

  /** The flat view: user and assistant text only, one entry per message that has any. */
  async flatHistory(owner: string, id: string): Promise<FlatMessage[]> {
    const messages = await this.messages(owner, id);
    return messages.flatMap((m) => {
      const content = textOf(m);
      return m.role !== "system" && content.length > 0 ? [{ id: m.id, role: m.role, content, createdAt: m.createdAt }] : [];
    });
  }

  /** The timeline view: every part of every message, in order, with what the wings show beside them. */
  async timeline(owner: string, id: string): Promise<TimelineEntry[]> {
    const thread: ThreadRef = { owner, threadId: id };
    const [messages, ...sections] = await Promise.all([
      this.messages(owner, id),
      ...this.lives.flatMap((life) => (life.timeline ? [life.timeline(this.pool, thread)] : [])),
    ]);
    const shown: TimelineSection = Object.assign({}, ...sections);
    return timelineOf(messages as StoredMessage[], shown.feedback, shown.documents, shown.memoriesUsed);
  }

  /**
   * Every thread of `from`'s and everything the wings keep of theirs becomes
   * `to`'s, in one transaction: an account taking over what a guest made.
   * A message id `to` used already (each is unique per owner) keeps `to`'s
   * turn record; `from`'s goes.
   */
  async adopt(from: string, to: string): Promise<void> {
    if (from === to) return;
    const moved = await this.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>("UPDATE threads SET owner = $2 WHERE owner = $1 RETURNING id", [from, to]);
      await tx.query(
        `UPDATE turns u SET owner = $2 WHERE u.owner = $1
            AND NOT EXISTS (SELECT 1 FROM turns k WHERE k.owner = $2 AND k.message_id = u.message_id)`,
        [from, to],
      );
      await tx.query("DELETE FROM turns WHERE owner = $1", [from]);
      for (const life of this.lives) await life.adopt?.(tx, from, to);
      return rows.map((row) => row.id);
    });
    for (const threadId of moved) {
      this.changed(from, threadId);
      this.changed(to, threadId);
    }
  }

  /**
   * The owner's threads that match `query` by title or by what was said in
   * them (Postgres full-text search, English stemming, GIN indexes), one result
   * per thread with its best-matching message, ranked by relevance and then
   * recency. Never another owner's thread, nor a version off a thread's
   * active path. A message is searched by its
   * first SEARCHED_CHARS characters, as the index holds them.
   */
  async search(owner: string, query: string, { limit, offset = 0, excludeThreadId }: SearchOptions): Promise<RankedResults> {
    const { rows } = await this.pool.query<SearchRow>(
      `WITH q AS (SELECT websearch_to_tsquery('english', $2) AS q),
       said AS (
         SELECT DISTINCT ON (m.thread_id) m.thread_id, m.message_id, m.content,
                ts_rank(threadline_search_vector(m.content), q.q) AS rank
           FROM messages m JOIN threads t ON t.id = m.thread_id, q
          WHERE t.owner = $1 AND m.kind IN ('user', 'assistant') AND m.active AND threadline_search_vector(m.content) @@ q.q
          -- On a tie the user's own words win over a reply that quotes them.
          ORDER BY m.thread_id, rank DESC, (m.kind = 'user') DESC, m.seq DESC
       ), titled AS (
         SELECT t.id AS thread_id, ts_rank(to_tsvector('english', coalesce(t.title, '')), q.q) AS rank
           FROM threads t, q
          WHERE t.owner = $1 AND to_tsvector('english', coalesce(t.title, '')) @@ q.q
       )
       SELECT t.id, t.title, t.updated_at, said.message_id,
              ts_headline('english', coalesce(left(said.content, ${SEARCHED_CHARS}), t.title, ''), q.q,
                          'MaxFragments=1, MaxWords=24, MinWords=8, StartSel="${MARK_START}", StopSel="${MARK_END}"') AS snippet
         FROM threads t CROSS JOIN q
         LEFT JOIN said ON said.thread_id = t.id
         LEFT JOIN titled ON titled.thread_id = t.id
        WHERE t.owner = $1 AND t.message_count > 0
          AND (said.thread_id IS NOT NULL OR titled.thread_id IS NOT NULL)
          AND ($5::uuid IS NULL OR t.id <> $5::uuid)
        -- A title match counts a little more than a word in passing; a month of age halves a score.
        ORDER BY greatest(coalesce(said.rank, 0), coalesce(titled.rank, 0) * 1.5)
                 / (1 + extract(epoch FROM now() - t.updated_at) / (30 * 86400)) DESC,
                 t.updated_at DESC, t.id
        LIMIT $3 OFFSET $4`,
      [owner, query, limit + 1, offset, excludeThreadId ?? null],
    );
    const page = rows.slice(0, limit);
    return {
      results: page.map((row) => ({
        threadId: row.id,
        title: row.title ?? UNTITLED_THREAD,
        ...(row.message_id ? { messageId: row.message_id } : {}),
        ...highlighted(row.snippet),
        updatedAt: row.updated_at.toISOString(),
      })),
      nextOffset: rows.length > limit ? offset + limit : null,
    };
  }
}

/** How much of a message's text search reads (the index's threadline_search_vector): the snippet comes from the same part. */
const SEARCHED_CHARS = 65_536;

// ts_headline marks each match with these private-use characters; they become highlight ranges.
const MARK_START = "\uE000";
const MARK_END = "\uE001";

/** A snippet without its marks, and where the marks were: [start, end) offsets of each match. */
export function highlighted(marked: string): { snippet: string; highlights: [number, number][] } {
  let snippet = "";
  const highlights: [number, number][] = [];
  let start = -1;
  for (const ch of marked) {
    if (ch === MARK_START) start = snippet.length;
    else if (ch === MARK_END && start >= 0) {
      highlights.push([start, snippet.length]);
      start = -1;
    } else snippet += ch;
  }
  return { snippet, highlights };
}

interface SearchRow {
  id: string;
  title: string | null;
  updated_at: Date;
  message_id: string | null;
  snippet: string;
}

export interface SearchOptions {
  limit: number;
  offset?: number;
  /** Leave this thread out (the search_threads tool: the model already reads it). */
  excludeThreadId?: string;
}

/** A page of search results and the offset of the next (the route makes it a cursor). */
export interface RankedResults {
  results: SearchResult[];
  nextOffset: number | null;
}

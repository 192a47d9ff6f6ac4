import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
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
import { FileStore } from "@/lib/files/file-store";
import { documentHistory } from "@/lib/documents/document-store";
import type { ThreadSource } from "@threadline/history/thread-source";
import { PART_COLUMNS, rowsToMessages, type PartRow } from "@threadline/history/rows";
import { databaseRefusal } from "@/lib/db/refusal";
import type { ThreadSize, VersionTree } from "./export";
import type { ExportedUsage } from "@/lib/protocol/thread-export";
import { forkTitle } from "./fork-title";
import { ImportBatches } from "./import-rows";
import { threadFeedback } from "./feedback";
import type {
  DecidedSoFar,
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
import { LISTED_REMINDERS } from "@/lib/protocol/threads";

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
  reminders: { count: number; first: { id: string; text: string; dueAt: string }[] };
}

// Each is one index probe per listed thread, made only for the rows the page
// returns: a running turn by the partial index of unfinished turns
// (turns_thread_idx), the thread's latest message by (thread_id, seq) read
// backwards, its reminders still to come by reminders_thread_idx. A summary
// (system_event) is no message of the conversation.
const LIST_COLUMNS = `t.id, t.title, t.created_at, t.updated_at, t.updated_at::text AS updated_at_exact, t.message_count, t.last_read_at,
  t.source, t.source_id, t.source_metadata, t.model,
  EXISTS (SELECT 1 FROM turns tu
           WHERE tu.thread_id = t.id AND tu.status <> 'done' AND threadline_turn_running(tu)) AS generating,
  latest.created_at AS last_reply_at,
  latest.created_at IS NOT NULL AND latest.created_at > coalesce(t.last_read_at, '-infinity') AS unseen,
  (SELECT jsonb_build_object('count', coalesce(max(s.total), 0),
            'first', coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'text', s.text, 'dueAt', s.due_at) ORDER BY s.due_at, s.id), '[]'::jsonb))
     -- The window counts every row before LIMIT keeps the first few: one probe for both.
     FROM (SELECT id, text, due_at, count(*) OVER () AS total FROM reminders r
            WHERE r.thread_id = t.id AND r.status = 'scheduled' ORDER BY due_at, id LIMIT ${LISTED_REMINDERS}) s) AS reminders`;
const LATEST_REPLY = `LEFT JOIN LATERAL (
    SELECT CASE WHEN m.kind <> 'user' THEN m.created_at END AS created_at
      FROM messages m WHERE m.thread_id = t.id AND m.active AND m.kind <> 'system_event'
     ORDER BY m.seq DESC LIMIT 1) latest ON true`;

function toListItem(row: ListedRow): ThreadListItem {
  return {
    ...toSummary(row),
    hasActiveGeneration: row.generating,
    lastReadAt: row.last_read_at?.toISOString() ?? null,
    lastReplyAt: row.last_reply_at?.toISOString() ?? null,
    unseen: row.unseen,
    // jsonb keeps the timestamp as Postgres prints it; the API speaks ISO.
    reminders: row.reminders.first.map((r) => ({ ...r, dueAt: new Date(r.dueAt).toISOString() })),
    reminderCount: row.reminders.count,
  };
}

function decodeCursor(cursor: string): [string, string] {
  const place = threadsCursor.decode(cursor);
  if (place === null) throw new AppError("bad_request:cursor", "The cursor is not one this server handed out.");
  return place;
}

export class ThreadRepository {
  /** `history`: the app's one adapter, which the thread's reads go through (one of its own when none is given). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly changed: ThreadsChanged = () => {},
    private readonly history: PostgresHistoryAdapter = new PostgresHistoryAdapter(pool, changed),
  ) {}

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
      `SELECT ${LIST_COLUMNS} FROM threads t ${LATEST_REPLY}
        WHERE t.owner = $1 AND t.message_count > 0 ${after} ${from}
        ORDER BY t.updated_at DESC, t.id DESC
        LIMIT $2`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      threads: page.map(toListItem),
      // updated_at as Postgres prints it: a JS Date would drop the microseconds.
      nextCursor: rows.length > limit && last ? threadsCursor.encode([last.updated_at_exact, last.id]) : null,
    };
  }

  async get(owner: string, id: string): Promise<ThreadSummary> {
    const { rows } = await this.pool.query<ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM threads WHERE id = $1 AND owner = $2`,
      [id, owner],
    );
    if (rows.length === 0) throw notFoundThread();
    return toSummary(rows[0]);
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
    const { rows } = await this.pool.query<{ last_read_at: Date }>(
      "UPDATE threads SET last_read_at = now() WHERE id = $1 AND owner = $2 RETURNING last_read_at",
      [id, owner],
    );
    if (rows.length === 0) throw notFoundThread();
    this.changed(owner, id);
    return { lastReadAt: rows[0].last_read_at.toISOString() };
  }

  /** Deletes the thread; its messages go with it (ON DELETE CASCADE), and the files no other thread names, in the same statement. */
  async delete(owner: string, id: string): Promise<void> {
    const { rows } = await this.pool.query<{ deleted: boolean }>("SELECT threadline_delete_thread($1, $2) AS deleted", [id, owner]);
    if (!rows[0].deleted) throw notFoundThread();
    this.changed(owner, id);
  }

  /**
   * A new thread of the owner's holding the thread's active path up to and
   * including `messageId`, every message under a new id, titled the
   * source's title + " (fork)" as the user's title (the model never renames
   * it). One statement (threadline_fork_thread): whole or not at all. 404
   * for another owner's thread or a message that is not on the active path.
   * A reply that waits for approvals is copied stopped, its undecided calls
   * answered as not decided in the original thread: the approvals stay the
   * source's, so the copy never waits for nor goes on after a decision.
   */
  async fork(owner: string, id: string, messageId: string): Promise<ThreadSummary> {
    const { rows: titles } = await this.pool.query<{ title: string | null }>("SELECT title FROM threads WHERE id = $1 AND owner = $2", [id, owner]);
    if (titles.length === 0) throw notFoundThread();
    const forkId = randomUUID();
    const { rows } = await this.pool.query<{ forked: boolean }>("SELECT forked FROM threadline_fork_thread($1, $2, $3, $4, $5)", [
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

  /** Every version of every message of the thread with all its parts, oldest first; 404 if it is not the owner's. */
  async versionTree(owner: string, id: string): Promise<VersionTree> {
    const { rows: threads } = await this.pool.query<
      Pick<ThreadRow, "title" | "created_at" | "updated_at" | "source" | "source_id" | "source_metadata"> & { usage: ExportedUsage[] }
    >(
      `SELECT t.title, t.created_at, t.updated_at, t.source, t.source_id, t.source_metadata,
              (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                        'messageId', u.message_id, 'agent', u.agent, 'purpose', u.purpose, 'model', u.model,
                        'inputTokens', u.input_tokens, 'outputTokens', u.output_tokens, 'cachedTokens', u.cached_tokens,
                        'reasoningTokens', u.reasoning_tokens, 'createdAt', u.created_at)) ORDER BY u.created_at, u.id), '[]')
                 FROM model_usage u WHERE u.thread_id = t.id) AS usage
         FROM threads t WHERE t.id = $1 AND t.owner = $2`,
      [id, owner],
    );
    if (threads.length === 0) throw notFoundThread();
    const feedback = await threadFeedback(this.pool, owner, id);
    const { rows } = await this.pool.query<PartRow & { chosen: boolean }>(
      `SELECT ${PART_COLUMNS}, m.chosen FROM messages m WHERE m.thread_id = $1 ORDER BY m.seq`,
      [id],
    );
    // A message's parts are consecutive seqs, so its first row stands for it.
    const first = new Map(rows.map((row) => [row.message_id, row] as const).reverse());
    const messages = rowsToMessages(rows).map((message): ExportedMessage => {
      const row = first.get(message.id)!;
      const { id: messageId, parentId, role, parts, status, createdAt, seq, model } = message;
      const said = feedback[messageId];
      return { id: messageId, parentId: parentId ?? null, role, parts, status, createdAt, chosen: row.chosen, seq, ...(model ? { model } : {}), ...(said ? { feedback: said } : {}) };
    });
    const files = await this.filesOf(owner, messages);
    const documents = await this.documentsOf(id);
    const [thread] = threads;
    const origin = { source: thread.source, sourceId: thread.source_id, sourceMetadata: thread.source_metadata };
    // jsonb keeps the time as Postgres prints it, and a title's call has no message: the file speaks ISO, and null.
    const usage = thread.usage.map((u) => ({ ...u, messageId: u.messageId ?? null, createdAt: new Date(u.createdAt).toISOString() }));
    return {
      thread: { title: thread.title, createdAt: thread.created_at.toISOString(), updatedAt: thread.updated_at.toISOString(), ...origin },
      usage,
      ...(files.length > 0 ? { files } : {}),
      messages,
      ...(documents.length > 0 ? { documents } : {}),
    };
  }

  /** The thread's documents with every version, on every path (the thread is the owner's: versionTree checked). */
  private async documentsOf(threadId: string): Promise<ExportedDocument[]> {
    const { rows } = await this.pool.query<{
      id: string; title: string; kind: ExportedDocument["kind"]; language: string | null; created_at: Date;
      version: number; content: string; author: string; message_id: string; tool_call_id: string | null; version_at: Date;
    }>(
      `SELECT d.id, d.title, d.kind, d.language, d.created_at, v.version, v.content, v.author, v.message_id, v.tool_call_id, v.created_at AS version_at
         FROM documents d JOIN document_versions v ON v.document_id = d.id
        WHERE d.thread_id = $1 ORDER BY d.created_at, d.id, v.version`,
      [threadId],
    );
    const documents: ExportedDocument[] = [];
    for (const row of rows) {
      let document = documents.at(-1);
      if (document?.id !== row.id) {
        document = { id: row.id, title: row.title, kind: row.kind, ...(row.language ? { language: row.language } : {}), createdAt: row.created_at.toISOString(), versions: [] };
        documents.push(document);
      }
      document.versions.push({
        version: row.version, content: row.content, author: row.author, messageId: row.message_id,
        ...(row.tool_call_id ? { toolCallId: row.tool_call_id } : {}), createdAt: row.version_at.toISOString(),
      });
    }
    return documents;
  }

  /** The owner's files the messages carry, each once, their bytes in base64: what a thread file inlines. */
  private async filesOf(owner: string, messages: ExportedMessage[]): Promise<ExportedFile[]> {
    const ids = [...new Set(messages.flatMap((message) => message.parts.flatMap((part) => (part.type === "file" ? [part.fileId] : []))))];
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string; name: string; media_type: ExportedFile["mediaType"]; size: number; content: Buffer }>(
      "SELECT id, name, media_type, size, content FROM files WHERE owner = $1 AND id = ANY($2::uuid[])",
      [owner, ids],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((fileId) => {
      const row = byId.get(fileId);
      return row ? [{ id: row.id, name: row.name, mediaType: row.media_type, size: row.size, data: row.content.toString("base64") }] : [];
    });
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
   * its title the user's. Written in batches (threadline_import_parts) in
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
    // The file's files, stored as the importer's (once per content: one they hold already is theirs again) before the messages that name them.
    // A PDF's text is read later, off the request path, as an upload's is (lib/files/pdf-extractions.ts).
    const addFile = async (file: ExportedFile, decoded: DecodedFile) => {
      const stored = await new FileStore(client).save(owner, { name: file.name, mediaType: file.mediaType, content: decoded.content, sha256: decoded.sha256 });
      batches.fileIds.set(file.id, stored.id);
    };
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const write = async () => {
      const r = batches.take();
      if (!r) return;
      await client.query("SELECT threadline_import_parts($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb[], $10, $11, $12, $13, $14, $15)", [
        id, r.seqs, r.messageIds, r.partIndexes, r.kinds, r.agents, r.contents, r.escaped, r.data, r.statuses, r.createdAts, r.parents, r.chosen, r.active, r.models,
      ]);
    };
    try {
      await client.query("BEGIN");
      // Where the file's thread came from stays; a file that does not say came from a file.
      await client.query(
        "INSERT INTO threads (id, owner, title, title_source, created_at, next_seq, source, source_id, source_metadata) VALUES ($1, $2, $3, 'user', $4, 1, $5, $6, $7)",
        [id, owner, thread.title, thread.createdAt, thread.source ?? "import", thread.sourceId ?? null, thread.sourceMetadata ?? null],
      );
      const documents: ExportedDocument[] = [];
      await feed(
        async (message) => {
          if (batches.add(message)) await write();
        },
        addFile,
        async (document) => void documents.push(document),
      );
      await write();
      // The documents under new ids, each version with its message's new id.
      for (const document of documents) {
        const documentId = randomUUID();
        await client.query("INSERT INTO documents (id, thread_id, title, kind, language, created_at) VALUES ($1, $2, $3, $4, $5, $6)", [
          documentId, id, document.title, document.kind, document.language ?? null, document.createdAt,
        ]);
        const v = document.versions;
        await client.query(
          `INSERT INTO document_versions (document_id, version, content, author, message_id, tool_call_id, created_at)
           SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`,
          [documentId, v.map((x) => x.version), v.map((x) => x.content), v.map((x) => x.author), v.map((x) => batches.newIdOf(x.messageId)), v.map((x) => x.toolCallId ?? null), v.map((x) => x.createdAt)],
        );
      }
      const f = batches.feedback;
      if (f.messageIds.length > 0) {
        await client.query(
          `INSERT INTO message_feedback (thread_id, message_id, rating, reason, comment, updated_at)
           SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])`,
          [id, f.messageIds, f.ratings, f.reasons, f.comments, f.updatedAts],
        );
      }
      await client.query("SELECT threadline_import_finish($1)", [id]);
      await client.query("COMMIT");
    } catch (error) {
      // A connection that cannot even roll back is not given back to the pool.
      await client.query("ROLLBACK").catch((rollback: Error) => void (broken = rollback));
      // A value of the file the database cannot hold (a date before year 1, say) is the file's fault, not the server's.
      const refusal = databaseRefusal(error);
      if (refusal) throw new AppError("bad_request:import", `The file could not be imported: ${refusal}. Nothing was stored.`, { cause: error });
      throw error;
    } finally {
      client.release(broken);
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

  /** A page of the thread: the newest messages before a place, oldest first (see PostgresHistoryAdapter.page); 404 if it is not the owner's. */
  async page(owner: string, id: string, options: { before?: number; limit: number }): Promise<{ messages: HistoryMessage[]; olderBefore: number | null }> {
    const page = await this.history.page({ owner, threadId: id, ...options });
    // An empty page is a thread with nothing before the cursor, or no thread of this owner's.
    if (page.messages.length === 0) await this.get(owner, id);
    const waiting = page.messages.find((m) => m.status === "waiting");
    if (!waiting) return page;
    return { ...page, messages: await this.withDecided(id, page.messages, waiting.id) };
  }

  /**
   * A waiting reply with the decisions made so far on its calls: a page drawn
   * while one of two calls is decided shows that one decided (the reply goes
   * on once the other is). One read, only for a page that ends waiting.
   */
  private async withDecided(threadId: string, messages: StoredMessage[], waitingId: string): Promise<HistoryMessage[]> {
    const { rows } = await this.pool.query<{ id: string; decision: string; reason: string | null }>(
      "SELECT id, decision, reason FROM tool_approvals WHERE thread_id = $1 AND message_id = $2 AND decision IS NOT NULL",
      [threadId, waitingId],
    );
    if (rows.length === 0) return messages;
    const decided: DecidedSoFar = Object.fromEntries(
      rows.map((r) => [r.id, { approved: r.decision === "approved", ...(r.reason !== null ? { reason: r.reason } : {}) }]),
    );
    return messages.map((m) => (m.id === waitingId ? { ...m, decided } : m));
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

  /** The timeline view: every part of every message, in order. */
  async timeline(owner: string, id: string): Promise<TimelineEntry[]> {
    const [messages, feedback, documents] = await Promise.all([
      this.messages(owner, id),
      threadFeedback(this.pool, owner, id),
      documentHistory(this.pool, owner, id),
    ]);
    return timelineOf(messages, feedback, documents);
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

import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError, notFoundThread } from "@threadline/history/errors";
import { documentVersionsCursor } from "@/lib/protocol/cursors";
import {
  OWNER_AUTHOR,
  type DocumentHistory,
  type DocumentKind,
  type DocumentVersion,
  type DocumentVersionsPage,
  type ThreadDocument,
} from "@/lib/protocol/documents";

// The thread's documents (1735000000000_documents.sql): written by the
// agents' tools (once per tool call, whatever retries), revised by the
// owner, read as of the thread's active path: a version belongs with the
// reply that wrote it (or that the owner's edit was made on), and shows while
// that reply is on the path. A document's versions together hold at most
// `maxStoredBytes` of text (the last write past it is refused, the agents'
// too: they read why), and the page reads them one latest version at a time,
// the older ones a page at a time.

/** Who writes a version: an agent's call in a reply, keyed by the call. */
export interface AgentWrite {
  author: string;
  /** The reply being written. */
  messageId: string;
  toolCallId: string;
}

interface VersionRow {
  version: number;
  content: string;
  author: string;
  message_id: string;
  created_at: Date;
}

interface DocumentRow extends VersionRow {
  id: string;
  title: string;
  kind: DocumentKind;
  language: string | null;
}

/** Version `alias` is on the path when its reply is, or it is the reply being written now (`writing`, a parameter). */
const onPath = (alias: string, writing: string) => `(${alias}.message_id = ${writing} OR EXISTS (
  SELECT 1 FROM messages m WHERE m.thread_id = d.thread_id AND m.message_id = ${alias}.message_id AND m.part_index = 0 AND m.active))`;

const notFoundDocument = () => new AppError("not_found:document", "There is no such document in this thread.");

/** How much text one document keeps, all its versions together, and how many documents one thread holds. */
export interface DocumentLimits {
  maxStoredBytes: number;
  /** Unset: no cap. */
  maxPerThread?: number;
}

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

export class DocumentStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly limits: DocumentLimits,
  ) {}

  /** A new document and its first version; the same call again (a retried step) finds the one it made. */
  async create(
    owner: string,
    threadId: string,
    document: { title: string; kind: DocumentKind; language?: string; content: string },
    by: AgentWrite,
  ): Promise<{ id: string; version: number }> {
    // A thread's documents are made by its agents' calls, one call at a time (one turn runs in a thread at a time),
    // so the count read here is not raced.
    const { rows } = await this.pool.query<{ id: string | null; version: number | null; full: boolean }>(
      `WITH found AS (
         SELECT d.id, v.version FROM documents d JOIN document_versions v ON v.document_id = d.id
          WHERE d.thread_id = $1 AND v.message_id = $4 AND v.tool_call_id = $5
       ), full_thread AS (
         SELECT $11::integer IS NOT NULL AND count(*) >= $11::integer AS full FROM documents WHERE thread_id = $1
       ), made AS (
         INSERT INTO documents (id, thread_id, title, kind, language)
         SELECT $6, t.id, $7, $8, $9 FROM threads t, full_thread f
          WHERE t.id = $1 AND t.owner = $2 AND NOT EXISTS (SELECT 1 FROM found) AND NOT f.full
         RETURNING id
       ), first AS (
         INSERT INTO document_versions (document_id, version, content, author, message_id, tool_call_id)
         SELECT id, 1, $10, $3, $4, $5 FROM made
         RETURNING document_id AS id, version
       )
       SELECT id, version, false AS full FROM found
       UNION ALL SELECT id, version, false FROM first
       UNION ALL SELECT NULL, NULL, true FROM full_thread f
        WHERE f.full AND NOT EXISTS (SELECT 1 FROM found) AND EXISTS (SELECT 1 FROM threads t WHERE t.id = $1 AND t.owner = $2)`,
      [
        threadId,
        owner,
        by.author,
        by.messageId,
        by.toolCallId,
        randomUUID(),
        document.title,
        document.kind,
        document.language ?? null,
        document.content,
        this.limits.maxPerThread ?? null,
      ],
    );
    if (rows.length === 0) throw notFoundThread();
    const [row] = rows;
    if (row.full || row.id === null || row.version === null) {
      throw new AppError(
        "payload_too_large:documents",
        `This conversation already holds ${this.limits.maxPerThread} documents, the most one may. Revise one of them instead, or start a new conversation.`,
      );
    }
    return { id: row.id, version: row.version };
  }

  /** The latest version of the document as the thread's path shows it now (`writing`: the reply being written counts). */
  async latest(owner: string, threadId: string, documentId: string, writing: string | null = null): Promise<{ title: string; kind: DocumentKind; language?: string; latest: DocumentVersion }> {
    const { rows } = await this.pool.query<DocumentRow>(
      `SELECT d.id, d.title, d.kind, d.language, v.version, v.content, v.author, v.message_id, v.created_at
         FROM documents d JOIN threads t ON t.id = d.thread_id JOIN document_versions v ON v.document_id = d.id
        WHERE d.thread_id = $1 AND t.owner = $2 AND d.id = $4 AND ${onPath("v", "$3")}
        ORDER BY v.version DESC LIMIT 1`,
      [threadId, owner, writing, documentId],
    );
    if (rows.length === 0) throw notFoundDocument();
    const [row] = rows;
    return { title: row.title, kind: row.kind, ...(row.language ? { language: row.language } : {}), latest: versionOf(row) };
  }

  /**
   * A new version by an agent's call, over the latest; the same call again
   * finds the version it wrote. Its version number is the document's next,
   * whichever path the earlier ones are on.
   */
  async revise(owner: string, threadId: string, documentId: string, content: string, by: AgentWrite): Promise<{ id: string; version: number }> {
    const version = await this.write(owner, threadId, documentId, content, { author: by.author, messageId: by.messageId, toolCallId: by.toolCallId, basedOn: null });
    return { id: documentId, version };
  }

  /**
   * The owner's own version, written over `basedOn`, which must be the latest
   * on the path (else 409: it changed meanwhile), checked and written in one
   * step under the document's lock. It belongs with the reply the version it
   * was made on belongs with.
   */
  async edit(owner: string, threadId: string, documentId: string, content: string, basedOn: number): Promise<void> {
    await this.write(owner, threadId, documentId, content, { author: OWNER_AUTHOR, messageId: null, toolCallId: null, basedOn });
  }

  /** The thread's documents, each with its latest version on the active path and how many it has there; those with none on it left out. */
  async list(owner: string, threadId: string): Promise<ThreadDocument[]> {
    const { rows } = await this.pool.query<DocumentRow & { version_count: number }>(
      `SELECT d.id, d.title, d.kind, d.language, v.version, v.content, v.author, v.message_id, v.created_at, p.version_count
         FROM documents d JOIN threads t ON t.id = d.thread_id
         CROSS JOIN LATERAL (
           SELECT count(*)::int AS version_count, max(x.version) AS latest FROM document_versions x
            WHERE x.document_id = d.id AND ${onPath("x", "$3")}
         ) p
         JOIN document_versions v ON v.document_id = d.id AND v.version = p.latest
        WHERE d.thread_id = $1 AND t.owner = $2
        ORDER BY d.created_at, d.id`,
      [threadId, owner, null],
    );
    if (rows.length === 0) await this.requireThread(owner, threadId);
    return rows.map((row) => ({
      id: row.id,
      title: row.title,
      kind: row.kind,
      ...(row.language ? { language: row.language } : {}),
      latest: versionOf(row),
      versionCount: row.version_count,
      olderCursor: row.version_count > 1 ? documentVersionsCursor.encode(row.version) : null,
    }));
  }

  /** One document's versions on the active path before version `before` (all: null), newest first, `limit` of them. */
  async versions(owner: string, threadId: string, documentId: string, { before, limit }: { before: number | null; limit: number }): Promise<DocumentVersionsPage> {
    const { rows } = await this.pool.query<VersionRow>(
      `SELECT v.version, v.content, v.author, v.message_id, v.created_at
         FROM documents d JOIN threads t ON t.id = d.thread_id JOIN document_versions v ON v.document_id = d.id
        WHERE d.thread_id = $1 AND t.owner = $2 AND d.id = $4 AND ${onPath("v", "$3")}
          AND ($5::int IS NULL OR v.version < $5)
        ORDER BY v.version DESC
        LIMIT $6`,
      [threadId, owner, null, documentId, before, limit + 1],
    );
    if (rows.length === 0) {
      const { rowCount } = await this.pool.query(
        "SELECT 1 FROM documents d JOIN threads t ON t.id = d.thread_id WHERE d.id = $1 AND d.thread_id = $2 AND t.owner = $3",
        [documentId, threadId, owner],
      );
      if (!rowCount) throw notFoundDocument();
    }
    const page = rows.slice(0, limit);
    return {
      versions: page.map(versionOf),
      nextCursor: rows.length > limit ? documentVersionsCursor.encode(page.at(-1)!.version) : null,
    };
  }

  private async requireThread(owner: string, threadId: string): Promise<void> {
    const { rowCount } = await this.pool.query("SELECT 1 FROM threads WHERE id = $1 AND owner = $2", [threadId, owner]);
    if (!rowCount) throw notFoundThread();
  }

  /** Writes the next version (threadline_write_document); its number, or the AppError that says why not. */
  private async write(
    owner: string,
    threadId: string,
    documentId: string,
    content: string,
    by: { author: string; messageId: string | null; toolCallId: string | null; basedOn: number | null },
  ): Promise<number> {
    const { rows } = await this.pool.query<{ outcome: "written" | "found" | "changed" | "too_large" | "missing"; version: number | null; latest: number | null; stored: string | null }>(
      "SELECT outcome, version, latest, stored FROM threadline_write_document($1, $2, $3, $4, $5, $6, $7, $8, $9)",
      [threadId, owner, documentId, content, by.author, by.messageId, by.toolCallId, by.basedOn, this.limits.maxStoredBytes],
    );
    const [result] = rows;
    switch (result.outcome) {
      case "written":
      case "found":
        return result.version!;
      case "changed":
        throw new AppError("conflict:document_changed", `The document changed meanwhile: version ${result.latest} is the latest now. Reload it and edit that one.`);
      case "too_large":
        throw new AppError(
          "payload_too_large:document_full",
          `The document is full: its versions together may hold at most ${megabytes(this.limits.maxStoredBytes)} of text, and this version would take it past that ` +
            `(they hold ${megabytes(Number(result.stored))}). Start a new document to go on.`,
        );
      case "missing":
        throw notFoundDocument();
    }
  }
}

/**
 * The thread's documents with their versions on the active path, oldest
 * first, without their content: what the timeline tells of them.
 */
export async function documentHistory(pool: Pick<pg.Pool, "query">, owner: string, threadId: string): Promise<DocumentHistory[]> {
  const { rows } = await pool.query<Omit<DocumentRow, "content" | "kind" | "language">>(
    `SELECT d.id, d.title, v.version, v.author, v.message_id, v.created_at
       FROM documents d JOIN threads t ON t.id = d.thread_id JOIN document_versions v ON v.document_id = d.id
      WHERE d.thread_id = $1 AND t.owner = $2 AND ${onPath("v", "$3")}
      ORDER BY d.created_at, d.id, v.version`,
    [threadId, owner, null],
  );
  const documents: DocumentHistory[] = [];
  for (const row of rows) {
    let document = documents.at(-1);
    if (document?.id !== row.id) {
      document = { id: row.id, title: row.title, versions: [] };
      documents.push(document);
    }
    document.versions.push({ version: row.version, author: row.author, messageId: row.message_id, createdAt: row.created_at.toISOString() });
  }
  return documents;
}

function versionOf(row: VersionRow): DocumentVersion {
  return { version: row.version, content: row.content, author: row.author, messageId: row.message_id, createdAt: row.created_at.toISOString() };
}

import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError, notFoundThread } from "@threadline/history/errors";
import { OWNER_AUTHOR, type DocumentKind, type DocumentVersion, type ThreadDocument } from "@/lib/protocol/documents";

// The thread's documents (1735000000000_documents.sql): written by the
// agents' tools (once per tool call, whatever retries), revised by the
// owner, read as of the thread's active path: a version belongs with the
// reply that wrote it (or that the owner's edit was made on), and shows while
// that reply is on the path.

/** Who writes a version: an agent's call in a reply, keyed by the call. */
export interface AgentWrite {
  author: string;
  /** The reply being written. */
  messageId: string;
  toolCallId: string;
}

interface VersionRow {
  id: string;
  title: string;
  kind: DocumentKind;
  language: string | null;
  version: number;
  content: string;
  author: string;
  message_id: string;
  created_at: Date;
}

/** A version is on the path when its reply is, or it is the reply being written now ($3). */
const ON_PATH = `(v.message_id = $3 OR EXISTS (
  SELECT 1 FROM messages m WHERE m.thread_id = d.thread_id AND m.message_id = v.message_id AND m.part_index = 0 AND m.active))`;

const notFoundDocument = () => new AppError("not_found:document", "There is no such document in this thread.");

export class DocumentStore {
  constructor(private readonly pool: pg.Pool) {}

  /** A new document and its first version; the same call again (a retried step) finds the one it made. */
  async create(
    owner: string,
    threadId: string,
    document: { title: string; kind: DocumentKind; language?: string; content: string },
    by: AgentWrite,
  ): Promise<{ id: string; version: number }> {
    const { rows } = await this.pool.query<{ id: string; version: number }>(
      `WITH found AS (
         SELECT d.id, v.version FROM documents d JOIN document_versions v ON v.document_id = d.id
          WHERE d.thread_id = $1 AND v.message_id = $4 AND v.tool_call_id = $5
       ), made AS (
         INSERT INTO documents (id, thread_id, title, kind, language)
         SELECT $6, t.id, $7, $8, $9 FROM threads t WHERE t.id = $1 AND t.owner = $2 AND NOT EXISTS (SELECT 1 FROM found)
         RETURNING id
       ), first AS (
         INSERT INTO document_versions (document_id, version, content, author, message_id, tool_call_id)
         SELECT id, 1, $10, $3, $4, $5 FROM made
         RETURNING document_id AS id, version
       )
       SELECT id, version FROM found UNION ALL SELECT id, version FROM first`,
      [threadId, owner, by.author, by.messageId, by.toolCallId, randomUUID(), document.title, document.kind, document.language ?? null, document.content],
    );
    if (rows.length === 0) throw notFoundThread();
    return rows[0];
  }

  /** The latest version of the document as the thread's path shows it now (`writing`: the reply being written counts). */
  async latest(owner: string, threadId: string, documentId: string, writing: string | null = null): Promise<ThreadDocument> {
    const { rows } = await this.pool.query<VersionRow>(
      `SELECT d.id, d.title, d.kind, d.language, v.version, v.content, v.author, v.message_id, v.created_at
         FROM documents d JOIN threads t ON t.id = d.thread_id JOIN document_versions v ON v.document_id = d.id
        WHERE d.thread_id = $1 AND t.owner = $2 AND d.id = $4 AND ${ON_PATH}
        ORDER BY v.version DESC LIMIT 1`,
      [threadId, owner, writing, documentId],
    );
    if (rows.length === 0) throw notFoundDocument();
    return documentsOf(rows)[0];
  }

  /**
   * A new version by an agent's call, over the latest; the same call again
   * finds the version it wrote. Its version number is the document's next,
   * whichever path the earlier ones are on.
   */
  async revise(owner: string, threadId: string, documentId: string, content: string, by: AgentWrite): Promise<{ id: string; version: number }> {
    return this.write(owner, threadId, documentId, content, { author: by.author, messageId: by.messageId, toolCallId: by.toolCallId });
  }

  /**
   * The owner's own version, written over `basedOn`, which must be the latest
   * on the path (else 409: it changed meanwhile). It belongs with the reply
   * the version it was made on belongs with.
   */
  async edit(owner: string, threadId: string, documentId: string, content: string, basedOn: number): Promise<void> {
    const latest = await this.latest(owner, threadId, documentId);
    const base = latest.versions.at(-1)!;
    if (base.version !== basedOn) {
      throw new AppError("conflict:document_changed", `The document changed meanwhile: version ${base.version} is the latest now. Reload it and edit that one.`);
    }
    await this.write(owner, threadId, documentId, content, { author: OWNER_AUTHOR, messageId: base.messageId, toolCallId: null });
  }

  /** The thread's documents with their versions on the active path, oldest first; those with none on it left out. */
  async list(owner: string, threadId: string): Promise<ThreadDocument[]> {
    const { rows } = await this.pool.query<VersionRow>(
      `SELECT d.id, d.title, d.kind, d.language, v.version, v.content, v.author, v.message_id, v.created_at
         FROM documents d JOIN threads t ON t.id = d.thread_id JOIN document_versions v ON v.document_id = d.id
        WHERE d.thread_id = $1 AND t.owner = $2 AND ${ON_PATH}
        ORDER BY d.created_at, d.id, v.version`,
      [threadId, owner, null],
    );
    if (rows.length === 0) {
      const { rowCount } = await this.pool.query("SELECT 1 FROM threads WHERE id = $1 AND owner = $2", [threadId, owner]);
      if (!rowCount) throw notFoundThread();
    }
    return documentsOf(rows);
  }

  private async write(
    owner: string,
    threadId: string,
    documentId: string,
    content: string,
    by: { author: string; messageId: string; toolCallId: string | null },
  ): Promise<{ id: string; version: number }> {
    for (let attempt = 0; ; attempt++) {
      try {
        const { rows } = await this.pool.query<{ id: string; version: number }>(
          `WITH doc AS (
             SELECT d.id FROM documents d JOIN threads t ON t.id = d.thread_id
              WHERE d.id = $3 AND d.thread_id = $1 AND t.owner = $2 FOR UPDATE OF d
           ), found AS (
             SELECT document_id AS id, version FROM document_versions
              WHERE document_id = $3 AND message_id = $6 AND tool_call_id = $7
           ), added AS (
             INSERT INTO document_versions (document_id, version, content, author, message_id, tool_call_id)
             SELECT doc.id, (SELECT coalesce(max(x.version), 0) + 1 FROM document_versions x WHERE x.document_id = doc.id), $4, $5, $6, $7
               FROM doc WHERE NOT EXISTS (SELECT 1 FROM found)
             RETURNING document_id AS id, version
           )
           SELECT id, version FROM found UNION ALL SELECT id, version FROM added`,
          [threadId, owner, documentId, content, by.author, by.messageId, by.toolCallId],
        );
        if (rows.length === 0) throw notFoundDocument();
        return rows[0];
      } catch (error) {
        // Two writers numbered the same version at once: the second takes the next.
        if ((error as { code?: string }).code === "23505" && attempt < 3) continue;
        throw error;
      }
    }
  }
}

function documentsOf(rows: VersionRow[]): ThreadDocument[] {
  const documents: ThreadDocument[] = [];
  for (const row of rows) {
    let document = documents.at(-1);
    if (document?.id !== row.id) {
      document = { id: row.id, title: row.title, kind: row.kind, ...(row.language ? { language: row.language } : {}), versions: [] };
      documents.push(document);
    }
    const version: DocumentVersion = { version: row.version, content: row.content, author: row.author, messageId: row.message_id, createdAt: row.created_at.toISOString() };
    document.versions.push(version);
  }
  return documents;
}

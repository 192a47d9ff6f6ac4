import "server-only";
import { randomUUID } from "node:crypto";
import type { ExportedDocument } from "@/lib/protocol/thread-export";
import { once, type Db, type Wing, type WingParts } from "@/lib/wing";
import { documentHistory, DocumentStore } from "./document-store";
import { documentToolset } from "./document-tools";
import type { DocumentsSettings } from "./settings";

// The documents' part of a thread's life. A document belongs to its thread
// (it goes with it, by cascade) and each version to the reply it came with:
// a fork takes the versions of the replies it copies, an export every version
// on every path, an import each version with its reply's new id.

/** The thread's documents with every version, on every path. */
async function documentsOf(db: Db, threadId: string): Promise<ExportedDocument[]> {
  const { rows } = await db.query<{
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

const services = ({ config, pool }: WingParts<DocumentsSettings>) => ({
  /** The threads' documents, which the agents write and the owners revise. */
  documents: once(
    (): DocumentStore => new DocumentStore(pool(), { maxStoredBytes: config.DOCUMENT_MAX_STORED_MB * 1024 * 1024, maxPerThread: config.DOCUMENTS_PER_THREAD }),
  ),
});

export const documentsWing: Wing<{ documents(): DocumentStore }, ReturnType<typeof services>, DocumentsSettings> = {
  name: "documents",
  tables: ["documents", "document_versions"],
  services,
  toolset: (app) => documentToolset(app.documents),
  thread: {
    // The documents as the copied path has them: the versions that belong with its replies, numbered again from 1.
    // A copied message keeps its seq, which pairs each reply with its copy.
    async fork(tx, { source, fork }) {
      await tx.query(
        `WITH renamed AS (
           SELECT m.message_id, f.message_id AS new_id
             FROM messages m JOIN messages f ON f.thread_id = $2 AND f.seq = m.seq AND f.part_index = 0
            WHERE m.thread_id = $1 AND m.active AND m.part_index = 0
         ), docs AS (
           SELECT d.id AS old_id, gen_random_uuid() AS new_id, d.title, d.kind, d.language, d.created_at
             FROM documents d
            WHERE d.thread_id = $1
              AND EXISTS (SELECT 1 FROM document_versions v JOIN renamed r ON r.message_id = v.message_id WHERE v.document_id = d.id)
         ), made AS (
           INSERT INTO documents (id, thread_id, title, kind, language, created_at)
           SELECT new_id, $2, title, kind, language, created_at FROM docs
         )
         INSERT INTO document_versions (document_id, version, content, author, message_id, tool_call_id, created_at)
         SELECT docs.new_id, row_number() OVER (PARTITION BY v.document_id ORDER BY v.version), v.content, v.author, r.new_id, v.tool_call_id, v.created_at
           FROM document_versions v JOIN docs ON docs.old_id = v.document_id JOIN renamed r ON r.message_id = v.message_id`,
        [source, fork],
      );
    },
    async export(db, { threadId }) {
      const documents = await documentsOf(db, threadId);
      return documents.length > 0 ? { sections: { documents } } : {};
    },
    // Under new ids, each version with its message's new id.
    async importAfter({ tx, threadId, newMessageId }, { documents }) {
      for (const document of documents) {
        const documentId = randomUUID();
        await tx.query("INSERT INTO documents (id, thread_id, title, kind, language, created_at) VALUES ($1, $2, $3, $4, $5, $6)", [
          documentId, threadId, document.title, document.kind, document.language ?? null, document.createdAt,
        ]);
        const v = document.versions;
        await tx.query(
          `INSERT INTO document_versions (document_id, version, content, author, message_id, tool_call_id, created_at)
           SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`,
          [documentId, v.map((x) => x.version), v.map((x) => x.content), v.map((x) => x.author), v.map((x) => newMessageId(x.messageId)), v.map((x) => x.toolCallId ?? null), v.map((x) => x.createdAt)],
        );
      }
    },
    timeline: async (db, { owner, threadId }) => ({ documents: await documentHistory(db, owner, threadId) }),
  },
};

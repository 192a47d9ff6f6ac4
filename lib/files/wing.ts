import "server-only";
import type { FilePart } from "@threadline/history/parts";
import type { FileInput } from "@/lib/protocol/parts-codec";
import type { ModelOption } from "@/lib/protocol/models";
import type { ExportedFile, ExportedMessage } from "@/lib/protocol/thread-export";
import { once, type Db, type Wing, type WingParts } from "@/lib/wing";
import { FileStore } from "./file-store";
import { FileSweep } from "./file-sweep";
import { modelFiles } from "./model-files";
import { PdfExtractions } from "./pdf-extractions";
import { PdfTextStore } from "./pdf-text-store";
import type { UploadDeps } from "./upload";
import type { FilesSettings } from "./settings";

// The files' part of a thread's life. A file is the owner's, not the
// thread's: stored once per content and named by the messages that carry it,
// so a thread takes with it only the files no other thread names, and a
// fork names the same ones.

/** The owner's files the messages carry, each once, their bytes in base64: what a thread file inlines. */
async function filesOf(db: Db, owner: string, messages: readonly ExportedMessage[]): Promise<ExportedFile[]> {
  const ids = [...new Set(messages.flatMap((message) => message.parts.flatMap((part) => (part.type === "file" ? [part.fileId] : []))))];
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string; name: string; media_type: ExportedFile["mediaType"]; size: number; content: Buffer }>(
    "SELECT id, name, media_type, size, content FROM files WHERE owner = $1 AND id = ANY($2::uuid[])",
    [owner, ids],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((fileId) => {
    const row = byId.get(fileId);
    return row ? [{ id: row.id, name: row.name, mediaType: row.media_type, size: row.size, data: row.content.toString("base64") }] : [];
  });
}

/** The files' services: members of the app. */
function services(parts: WingParts<FilesSettings>, app: { models(): ModelOption[] }) {
  const { config, pool } = parts;
  const files = once((): FileStore => new FileStore(pool()));
  const pdfText = once((): PdfTextStore => new PdfTextStore(pool()));
  const pdfExtractions = (): PdfExtractions => parts.perProcess("pdfExtractions", () => new PdfExtractions(pdfText));
  const attachmentMaxBytes = config.ATTACHMENT_MAX_MB * 1024 * 1024;
  return {
    /** The owners' attached files. */
    files,
    /** The most one attached file may be, in bytes (ATTACHMENT_MAX_MB). */
    attachmentMaxBytes,
    /** What an upload is stored with: the store, STORAGE_QUOTA_MB (0: none), the size limit, and this server's PDF reader. */
    uploads: (): UploadDeps => ({
      files: files(),
      quotaBytes: config.STORAGE_QUOTA_MB > 0 ? config.STORAGE_QUOTA_MB * 1024 * 1024 : undefined,
      maxBytes: attachmentMaxBytes,
      extractions: pdfExtractions(),
    }),
    /** Where each PDF's text is, read by any server after its upload answered. */
    pdfText,
    /** This server's reader of pending PDFs' text: a few worker threads at a time, one per process. */
    pdfExtractions,
    /** Removes uploads never sent once their day is up; started as the server starts (instrumentation.ts), on either runtime. */
    fileSweep: (): FileSweep => parts.perProcess("fileSweep", () => new FileSweep(files), (sweep) => sweep.stop()),
    /** What a model is given of a message's files: images to a model the list says sees them (MODELS_WITH_IMAGES among it); every other model is told their names. */
    fileInput: async (owner: string, carried: FilePart[], modelId: string | undefined): Promise<FileInput> => {
      const seesImages = app.models().find((model) => model.id === modelId)?.capabilities.images ?? false;
      return modelFiles({ files: files(), pdfText: pdfText(), extractions: pdfExtractions() }, owner, carried, seesImages);
    },
  };
}

export const filesWing: Wing<{ models(): ModelOption[] }, ReturnType<typeof services>, FilesSettings> = {
  name: "files",
  tables: ["files"],
  services,
  thread: {
    // Run while the thread's messages are still there: the files they name
    // that no other thread names go. One uploaded again after the thread last
    // named it stays: it waits to be sent in another message (the sweep
    // removes it a day later if it never is).
    async delete(tx, { owner, threadId }) {
      await tx.query(
        `WITH named AS (
           SELECT m.data->>'fileId' AS file_id, max(m.created_at) AS last_named
             FROM messages m WHERE m.thread_id = $1 AND m.kind = 'file' GROUP BY 1)
         DELETE FROM files f USING named
          WHERE f.id::text = named.file_id AND f.owner = $2 AND f.uploaded_at <= named.last_named
            AND NOT EXISTS (SELECT 1 FROM messages o WHERE o.kind = 'file' AND o.data->>'fileId' = named.file_id AND o.thread_id <> $1)`,
        [threadId, owner],
      );
    },
    async export(db, { owner }, messages) {
      const files = await filesOf(db, owner, messages);
      return files.length > 0 ? { sections: { files } } : {};
    },
    // Stored as the importer's, once per content: one they hold already is theirs again. A PDF's text is read later, off the request path, as an upload's is.
    async importFile({ tx, owner }, file, decoded) {
      const stored = await new FileStore(tx).save(owner, { name: file.name, mediaType: file.mediaType, content: decoded.content, sha256: decoded.sha256 });
      return stored.id;
    },
    // A file the new owner already holds (the same bytes) is not kept twice: the old owner's messages name the new owner's copy.
    async adopt(tx, from, to) {
      await tx.query(
        `WITH same AS (
           SELECT old.id AS old_id, kept.id AS kept_id
             FROM files old JOIN files kept ON kept.owner = $2 AND kept.sha256 = old.sha256
            WHERE old.owner = $1
         ), renamed AS (
           UPDATE messages m SET data = jsonb_set(m.data, '{fileId}', to_jsonb(same.kept_id::text))
             FROM same WHERE m.kind = 'file' AND m.data->>'fileId' = same.old_id::text
         ), gone AS (
           DELETE FROM files f USING same WHERE f.id = same.old_id
         )
         UPDATE files SET owner = $2 WHERE owner = $1 AND id NOT IN (SELECT old_id FROM same)`,
        [from, to],
      );
    },
  },
};

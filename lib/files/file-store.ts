import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError } from "@threadline/history/errors";
import type { FileMediaType, FilePart } from "@threadline/history/parts";
import type { UploadedFile } from "@/lib/protocol/files";

// The owners' files in Postgres (the files table, 1734900000000_files.sql):
// one row per owner and content, read by id for its owner only. A message
// names a file by id (a part of its own); the bytes are read when a model
// needs them or the owner downloads them.

/** A file as a model call reads it. */
export interface FileContent {
  mediaType: FileMediaType;
  content: Buffer;
  /** A PDF's text, as its upload took it out; null: none could be. */
  extractedText: string | null;
}

/** A file as its download sends it. */
export interface StoredFile extends UploadedFile {
  content: Buffer;
}

interface FileRow {
  id: string;
  name: string;
  media_type: FileMediaType;
  size: number;
}

const uploaded = (row: FileRow): UploadedFile => ({ id: row.id, name: row.name, mediaType: row.media_type, size: row.size });

/** An upload nothing sends is removed this long after it was (last) uploaded. */
export const UNSENT_FILE_HOURS = 24;

export class FileStore {
  /** A pool, or a client inside a transaction (an import stores its files with its messages). */
  constructor(private readonly pool: Pick<pg.Pool, "query">) {}

  /**
   * Stores the owner's file once per content: the same bytes again (under any
   * name) are the same file, whose wait to be sent starts again. Answers with
   * the name this upload gave it.
   */
  async save(
    owner: string,
    file: { name: string; mediaType: FileMediaType; content: Buffer; sha256: Buffer; extractedText: string | null },
  ): Promise<UploadedFile> {
    const { rows } = await this.pool.query<FileRow>(
      `INSERT INTO files (id, owner, sha256, media_type, size, name, content, extracted_text)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (owner, sha256) DO UPDATE SET uploaded_at = now()
       RETURNING id, name, media_type, size`,
      [randomUUID(), owner, file.sha256, file.mediaType, file.content.length, file.name, file.content, file.extractedText],
    );
    return { ...uploaded(rows[0]), name: file.name };
  }

  /**
   * The files a message names, as its parts, each the owner's: refused whole
   * (nothing stored) when one is not. Each one's wait to be sent starts again,
   * so no sweep removes it while the message is on its way.
   */
  async forMessage(owner: string, files: { id: string; name?: string }[]): Promise<FilePart[]> {
    if (files.length === 0) return [];
    const { rows } = await this.pool.query<FileRow>(
      "UPDATE files SET uploaded_at = now() WHERE owner = $1 AND id = ANY($2::uuid[]) RETURNING id, name, media_type, size",
      [owner, files.map((file) => file.id)],
    );
    const found = new Map(rows.map((row) => [row.id, row]));
    return files.map((file) => {
      const row = found.get(file.id);
      if (!row) throw new AppError("bad_request:file", `The file ${file.name ?? file.id} is not one of your uploads (it was removed, or never sent): attach it again.`);
      return { type: "file", fileId: row.id, name: file.name ?? row.name, mediaType: row.media_type, size: row.size };
    });
  }

  /** The owner's file with its bytes, or undefined when they have none by that id. */
  async download(owner: string, id: string): Promise<StoredFile | undefined> {
    const { rows } = await this.pool.query<FileRow & { content: Buffer }>(
      "SELECT id, name, media_type, size, content FROM files WHERE id = $1 AND owner = $2",
      [id, owner],
    );
    return rows[0] ? { ...uploaded(rows[0]), content: rows[0].content } : undefined;
  }

  /** What a model reads of the owner's files, by id; a file gone since is missing from the map. */
  async contents(owner: string, ids: string[]): Promise<Map<string, FileContent>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.pool.query<{ id: string; media_type: FileMediaType; content: Buffer; extracted_text: string | null }>(
      "SELECT id, media_type, content, extracted_text FROM files WHERE owner = $1 AND id = ANY($2::uuid[])",
      [owner, [...new Set(ids)]],
    );
    return new Map(rows.map((row) => [row.id, { mediaType: row.media_type, content: row.content, extractedText: row.extracted_text }]));
  }

  /** Removes up to `limit` uploads never sent, uploaded more than `hours` ago; how many. */
  async sweep(limit: number, hours = UNSENT_FILE_HOURS): Promise<number> {
    const { rows } = await this.pool.query<{ removed: number }>("SELECT threadline_sweep_files(make_interval(hours => $1), $2) AS removed", [hours, limit]);
    return rows[0].removed;
  }
}

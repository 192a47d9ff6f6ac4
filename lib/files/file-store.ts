import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError } from "@threadline/history/errors";
import type { FileMediaType, FilePart } from "@threadline/history/parts";
import { fileSizeText, type FileTextState, type UploadedFile } from "@/lib/protocol/files";

// The owners' files in Postgres (the files table, 1734900000000_files.sql):
// one row per owner and content, read by id for its owner only. A message
// names a file by id (a part of its own); the bytes are read when a model
// needs them or the owner downloads them. A PDF's text is read after the
// upload answers (./pdf-extractions.ts) and kept beside its bytes.

/** A file as a model call reads it. */
export interface FileContent {
  mediaType: FileMediaType;
  /** Its bytes, when they were asked for (an image for a model that sees, a text file); else null. */
  content: Buffer | null;
  /** A PDF's text, once read; null: it holds none, or it is not read (yet). */
  extractedText: string | null;
  /** Where reading a PDF's text is; null for any other file. */
  textState: FileTextState | null;
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
  text_state?: FileTextState | null;
}

const uploaded = (row: FileRow): UploadedFile => ({
  id: row.id,
  name: row.name,
  mediaType: row.media_type,
  size: row.size,
  ...(row.text_state ? { textState: row.text_state } : {}),
});

/** An upload that would take the owner past STORAGE_QUOTA_MB: how much their files take, and of how much. */
export const overQuota = (used: number, quota: number, size?: number) =>
  new AppError(
    "payload_too_large:quota",
    `Your files take ${fileSizeText(used)} of your ${fileSizeText(quota)} of storage` +
      (size === undefined ? "" : `, and this one (${fileSizeText(size)}) would pass it`) +
      ": delete threads whose files you no longer need, then attach it again.",
  );

/** An upload nothing sends is removed this long after it was (last) uploaded. */
export const UNSENT_FILE_HOURS = 24;

export class FileStore {
  /** A pool, or a client inside a transaction (an import stores its files with its messages). */
  constructor(private readonly pool: Pick<pg.Pool, "query">) {}

  /**
   * Stores the owner's file once per content: the same bytes again (under any
   * name) are the same file, whose wait to be sent starts again. Within
   * `quotaBytes` of all their files together (unset: no quota), checked and
   * stored as one step per owner (threadline_store_file), so uploads at once
   * never pass it; past it, a 413 that says how much is used. Answers with
   * the name this upload gave it; a new PDF's text is then 'pending'.
   */
  async save(
    owner: string,
    file: { name: string; mediaType: FileMediaType; content: Buffer; sha256: Buffer },
    quotaBytes?: number,
  ): Promise<UploadedFile> {
    const { rows } = await this.pool.query<FileRow & { outcome: "stored" | "exists" | "over_quota"; used: string | null }>(
      "SELECT * FROM threadline_store_file($1, $2, $3, $4, $5, $6, $7)",
      [randomUUID(), owner, file.sha256, file.mediaType, file.name, file.content, quotaBytes ?? null],
    );
    if (rows[0].outcome === "over_quota") throw overQuota(Number(rows[0].used), quotaBytes!, file.content.length);
    return { ...uploaded(rows[0]), name: file.name };
  }

  /** How many bytes the owner's files take (what STORAGE_QUOTA_MB bounds). */
  async used(owner: string): Promise<number> {
    const { rows } = await this.pool.query<{ used: string }>("SELECT coalesce(sum(size), 0) AS used FROM files WHERE owner = $1", [owner]);
    return Number(rows[0].used);
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
      "SELECT id, name, media_type, size, text_state, content FROM files WHERE id = $1 AND owner = $2",
      [id, owner],
    );
    return rows[0] ? { ...uploaded(rows[0]), content: rows[0].content } : undefined;
  }

  /**
   * The owner's files of these contents (SHA-256, hex) with their bytes, by
   * content: how a share link reads the files it shows, whose ids may change
   * when a guest's files join an account's while their bytes do not.
   */
  async byContent(owner: string, sha256: string[]): Promise<Map<string, StoredFile>> {
    if (sha256.length === 0) return new Map();
    const { rows } = await this.pool.query<FileRow & { content: Buffer; sha256: Buffer }>(
      "SELECT id, name, media_type, size, text_state, content, sha256 FROM files WHERE owner = $1 AND sha256 = ANY($2::bytea[])",
      [owner, [...new Set(sha256)].map((hex) => Buffer.from(hex, "hex"))],
    );
    return new Map(rows.map((row) => [row.sha256.toString("hex"), { ...uploaded(row), content: row.content }]));
  }

  /**
   * What a model reads of the owner's files, by id: each one's type and, for
   * a PDF, its text; the bytes only of `withBytes` (the database does not
   * read the others'). A file gone since is missing from the map.
   */
  async contents(owner: string, ids: string[], withBytes: string[]): Promise<Map<string, FileContent>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.pool.query<{
      id: string;
      media_type: FileMediaType;
      content: Buffer | null;
      extracted_text: string | null;
      text_state: FileTextState | null;
    }>(
      `SELECT id, media_type, CASE WHEN id = ANY($3::uuid[]) THEN content END AS content, extracted_text, text_state
         FROM files WHERE owner = $1 AND id = ANY($2::uuid[])`,
      [owner, [...new Set(ids)], [...new Set(withBytes)]],
    );
    return new Map(
      rows.map((row) => [row.id, { mediaType: row.media_type, content: row.content, extractedText: row.extracted_text, textState: row.text_state }]),
    );
  }

  /** Removes up to `limit` uploads never sent, uploaded more than `hours` ago; how many. */
  async sweep(limit: number, hours = UNSENT_FILE_HOURS): Promise<number> {
    const { rows } = await this.pool.query<{ removed: number }>("SELECT threadline_sweep_files(make_interval(hours => $1), $2) AS removed", [hours, limit]);
    return rows[0].removed;
  }
}

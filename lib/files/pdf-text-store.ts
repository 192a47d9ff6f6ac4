import "server-only";
import type pg from "pg";
import type { FileTextState } from "@/lib/protocol/files";

// Where each PDF's text is (files.text_state, 1735200000000_file-text-state.sql):
// taken by one server at a time for a lease, kept when read, given up after
// MAX_TEXT_ATTEMPTS takes that never finished (a server that died reading it).

/** Takes of one PDF that may end with no answer (its server gone) before it is given up. */
export const MAX_TEXT_ATTEMPTS = 3;

/** A pending PDF this server took: its bytes, to read. */
export interface TakenPdf {
  id: string;
  content: Buffer;
}

export class PdfTextStore {
  constructor(private readonly pool: Pick<pg.Pool, "query">) {}

  /**
   * Takes up to `limit` pending PDFs no server holds (or whose holder let its
   * lease pass) for `leaseSeconds`, oldest first, each by one server (SKIP
   * LOCKED). One taken MAX_TEXT_ATTEMPTS times already fails instead.
   */
  async take(limit: number, leaseSeconds: number): Promise<TakenPdf[]> {
    const { rows } = await this.pool.query<TakenPdf>(
      `WITH due AS (
         SELECT id FROM files
          WHERE text_state = 'pending' AND (text_lease_until IS NULL OR text_lease_until < now())
          ORDER BY uploaded_at LIMIT $1
            FOR UPDATE SKIP LOCKED
       ), given_up AS (
         UPDATE files f SET text_state = 'failed', text_lease_until = NULL
           FROM due WHERE f.id = due.id AND f.text_attempts >= $3
       )
       UPDATE files f SET text_lease_until = now() + make_interval(secs => $2), text_attempts = f.text_attempts + 1
         FROM due WHERE f.id = due.id AND f.text_attempts < $3
       RETURNING f.id, f.content`,
      [limit, leaseSeconds, MAX_TEXT_ATTEMPTS],
    );
    return rows;
  }

  /** Keeps what reading a PDF came to; a second reader's answer (its lease had passed) changes nothing. */
  async finish(id: string, outcome: { state: "done"; text: string | null } | { state: "failed" }): Promise<void> {
    await this.pool.query(
      "UPDATE files SET text_state = $2, extracted_text = $3, text_lease_until = NULL WHERE id = $1 AND text_state = 'pending'",
      [id, outcome.state, outcome.state === "done" ? outcome.text : null],
    );
  }

  /** Which of the owner's files, by id, are PDFs whose text is still pending. */
  async pending(owner: string, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string }>(
      "SELECT id FROM files WHERE owner = $1 AND id = ANY($2::uuid[]) AND text_state = 'pending'",
      [owner, ids],
    );
    return rows.map((row) => row.id);
  }

  /** Where the owner's file's text is: null for a file that is not a PDF, undefined for no such file of theirs. */
  async state(owner: string, id: string): Promise<FileTextState | null | undefined> {
    const { rows } = await this.pool.query<{ text_state: FileTextState | null }>("SELECT text_state FROM files WHERE id = $1 AND owner = $2", [id, owner]);
    return rows[0]?.text_state;
  }
}

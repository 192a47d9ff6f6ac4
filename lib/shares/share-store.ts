import "server-only";
import type pg from "pg";
import { AppError } from "@threadline/history/errors";
import { inTransaction } from "@/lib/db/transaction";
import type { ShareOptions, SharedSnapshot } from "@/lib/protocol/shares";
import type { Db } from "@/lib/wing";

// The links' rows (the shares table is this wing's). A link is live while
// it is neither revoked nor past its expiry; a revoked one keeps its row
// without its snapshot, so it answers "gone" rather than "unknown".

const LIVE = "s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now())";

export interface ShareRow {
  key: string;
  threadId: string | null;
  title: string | null;
  options: ShareOptions;
  createdAt: Date;
  expiresAt: Date | null;
  views: number;
  expired: boolean;
}

interface Row {
  id: string;
  thread_id: string | null;
  title: string | null;
  options: ShareOptions;
  created_at: Date;
  expires_at: Date | null;
  views: string;
  expired: boolean;
}

const COLUMNS = "s.id, s.thread_id, s.title, s.options, s.created_at, s.expires_at, s.views, (s.expires_at IS NOT NULL AND s.expires_at <= now()) AS expired";

const toShare = (row: Row): ShareRow => ({
  key: row.id,
  threadId: row.thread_id,
  title: row.title,
  options: row.options,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  views: Number(row.views),
  expired: row.expired,
});

/** A live link as its page, Markdown, files and forks read it. */
export interface LiveShare {
  owner: string;
  options: ShareOptions;
  snapshot: SharedSnapshot;
  /** Each shown file's SHA-256 (hex), by the id the snapshot names it by. */
  files: Record<string, string>;
}

/** What GET /s/:shareId finds: a live link, one that was (revoked or expired), or none. */
export type ShareState = "live" | "gone" | "unknown";

export interface NewShare {
  key: string;
  owner: string;
  threadId: string;
  title: string | null;
  options: ShareOptions;
  /** The snapshot as JSON text: its length was checked against the bound. */
  snapshot: string;
  /** Each shown file's SHA-256 in hex, by the id the snapshot names it by. */
  files: Record<string, string>;
  expiresInDays: number | null;
}

export class ShareStore {
  constructor(private readonly pool: () => pg.Pool) {}

  /**
   * Stores a link unless the owner has `maxLinks` not revoked already (409);
   * the count and the insert hold the owner's lock, so two at once cannot
   * both take the last place. 404 when the thread went in between.
   */
  async create(share: NewShare, maxLinks: number): Promise<ShareRow> {
    return inTransaction(this.pool(), async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('shares'), hashtext($1))", [share.owner]);
      const { rows: counted } = await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM shares WHERE owner = $1 AND revoked_at IS NULL", [share.owner]);
      if (counted[0].n >= maxLinks) {
        throw new AppError(
          "conflict:share_limit",
          `You have ${counted[0].n} share links, the most one person may keep (${maxLinks}). Revoke some on the Shared links page, then try again.`,
        );
      }
      const { rows } = await tx.query<Row>(
        `INSERT INTO shares AS s (id, owner, thread_id, title, options, snapshot, files, expires_at)
         SELECT $1, $2, t.id, $4, $5, $6::jsonb, $7, CASE WHEN $8::int IS NULL THEN NULL ELSE now() + make_interval(days => $8::int) END
           FROM threads t WHERE t.id = $3 AND t.owner = $2
         RETURNING ${COLUMNS}`,
        [share.key, share.owner, share.threadId, share.title, share.options, share.snapshot, share.files, share.expiresInDays],
      );
      if (rows.length === 0) throw new AppError("not_found:thread", "Thread not found.");
      return toShare(rows[0]);
    });
  }

  /** The owner's links not revoked, newest first (at most SHARES_PER_IDENTITY of them). */
  async list(owner: string): Promise<ShareRow[]> {
    const { rows } = await this.pool().query<Row>(`SELECT ${COLUMNS} FROM shares s WHERE s.owner = $1 AND s.revoked_at IS NULL ORDER BY s.created_at DESC, s.id`, [
      owner,
    ]);
    return rows.map(toShare);
  }

  /** Revokes the owner's link: its snapshot goes at once. False when they have no such link not revoked. */
  async revoke(owner: string, key: string): Promise<boolean> {
    const { rowCount } = await this.pool().query(
      "UPDATE shares SET revoked_at = now(), snapshot = NULL, files = '{}' WHERE id = $1 AND owner = $2 AND revoked_at IS NULL",
      [key, owner],
    );
    return rowCount === 1;
  }

  /**
   * The link's state, counting a view of a live one (`count`) in the same
   * statement: an unknown key and a gone one take the same path (one index
   * lookup, no write), so neither answers sooner than the other.
   */
  async open(key: string, count: boolean): Promise<ShareState> {
    const { rows } = await this.pool().query<{ live: boolean }>(
      `WITH found AS (SELECT s.id, ${LIVE} AS live FROM shares s WHERE s.id = $1),
            counted AS (UPDATE shares SET views = views + 1 FROM found WHERE shares.id = found.id AND found.live AND $2::boolean)
       SELECT live FROM found`,
      [key, count],
    );
    return rows.length === 0 ? "unknown" : rows[0].live ? "live" : "gone";
  }

  /** A live link's snapshot and options, with its owner and its files' contents (SHA-256, hex) by the snapshot's ids; its state when it is not live. */
  async snapshot(key: string): Promise<LiveShare | Exclude<ShareState, "live">> {
    const { rows } = await this.pool().query<{ owner: string; options: ShareOptions; snapshot: SharedSnapshot | null; files: Record<string, string>; live: boolean }>(
      `SELECT s.owner, s.options, CASE WHEN ${LIVE} THEN s.snapshot END AS snapshot, s.files, ${LIVE} AS live FROM shares s WHERE s.id = $1`,
      [key],
    );
    if (rows.length === 0) return "unknown";
    const [row] = rows;
    return row.live && row.snapshot ? { owner: row.owner, options: row.options, snapshot: row.snapshot, files: row.files } : "gone";
  }
}

/** Revokes every link of a thread, in the thread's delete. */
export async function revokeThreadShares(tx: Db, threadId: string): Promise<void> {
  await tx.query("UPDATE shares SET revoked_at = now(), snapshot = NULL, files = '{}' WHERE thread_id = $1 AND revoked_at IS NULL", [threadId]);
}

/** Moves an owner's links to another (a guest's to the account they signed up for). */
export async function adoptShares(tx: Db, from: string, to: string): Promise<void> {
  await tx.query("UPDATE shares SET owner = $2 WHERE owner = $1", [from, to]);
}

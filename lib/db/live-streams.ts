import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { AppError } from "@threadline/history/errors";

// The cap on the live streams one identity holds open (GET /api/threads/:id/stream
// and GET /api/threads/events), counted in Postgres (live_streams), so it holds
// across every app server: each open stream is a row this process renews while
// the stream lasts and deletes when it ends. A process that dies stops renewing,
// and its rows lapse within a lease.

/** How long a stream's row lasts unless renewed; renewed a third of the way. */
export const LIVE_STREAM_LEASE_SECONDS = 60;
/** How long a refused client is asked to wait: a place frees when one of its other streams ends. */
const RETRY_AFTER_SECONDS = 10;

/** One per process: the live streams it holds, and the timer that renews their rows. */
export class LiveStreamSlots {
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: () => pg.Pool,
    /** The most streams an identity may hold open; 0: no cap. Read on each opening, so a test may change it. */
    private readonly cap: () => number,
    private readonly leaseSeconds = LIVE_STREAM_LEASE_SECONDS,
  ) {}

  /**
   * Takes one of the owner's places for a stream, or throws a 429 AppError
   * when all are held. Returns the release, to call once when the stream
   * ends (calling it again does nothing).
   */
  async open(owner: string): Promise<() => void> {
    const cap = this.cap();
    if (cap === 0) return () => {};
    const id = randomUUID();
    const { rows } = await this.pool().query<{ opened: boolean }>("SELECT threadline_open_live_stream($1, $2, $3, $4) AS opened", [
      id,
      owner,
      cap,
      this.leaseSeconds,
    ]);
    if (!rows[0].opened) {
      throw new AppError("rate_limited:live_streams", `You have ${cap} live connections open already. Close a tab, or try again in a few seconds.`, {
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      });
    }
    this.held.add(id);
    this.renewing();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held.delete(id);
      this.pool()
        .query("DELETE FROM live_streams WHERE id = $1", [id])
        .catch((error: Error) => console.error("[live streams] could not release a place (it lapses with its lease):", error.message));
    };
  }

  /** How many streams this process holds (for tests and leak checks). */
  get size(): number {
    return this.held.size;
  }

  /** One statement per interval renews every row this process holds, while it holds any. */
  private renewing(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.held.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      this.pool()
        .query(
          // Rows a dead server left for owners who never came back are swept along (never waiting for a row another statement holds).
          `WITH renewed AS (
             UPDATE live_streams SET expires_at = clock_timestamp() + make_interval(secs => $2) WHERE id = ANY($1::uuid[]) RETURNING id
           ), swept AS (
             DELETE FROM live_streams WHERE id IN (
               SELECT id FROM live_streams WHERE expires_at < clock_timestamp() - interval '1 hour' LIMIT 100 FOR UPDATE SKIP LOCKED)
           )
           SELECT count(*) FROM renewed`,
          [[...this.held], this.leaseSeconds],
        )
        .catch((error: Error) => console.error("[live streams] could not renew:", error.message));
    }, (this.leaseSeconds * 1000) / 3);
    this.timer.unref();
  }
}

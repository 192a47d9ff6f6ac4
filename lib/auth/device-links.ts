import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type pg from "pg";
import { AppError } from "@threadline/history/errors";

// "Use on another device": an identity lives in one browser's cookie, so a
// person who wants their chats elsewhere asks for a one-time link. It carries
// a random code (256 bits) in the URL's fragment, which browsers never send to
// a server or in a Referer; the new browser posts it (same origin, JSON) to
// take the identity over. One live link per identity; asking again or revoking
// ends the previous one; a link works once and for a day.

const DEVICE_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

const digest = (code: string) => createHash("sha256").update(code).digest("base64url");

export interface DeviceLink {
  code: string;
  expiresAt: string;
}

export class DeviceLinks {
  constructor(private readonly pool: pg.Pool) {}

  /** A new link for `owner`; any earlier live one stops working. */
  async create(owner: string, now = new Date()): Promise<DeviceLink> {
    const code = randomBytes(32).toString("base64url");
    const expiresAt = new Date(now.getTime() + DEVICE_LINK_LIFETIME_MS);
    await this.pool.query(
      `WITH revoked AS (
         UPDATE device_links SET revoked_at = $4 WHERE owner = $1 AND used_at IS NULL AND revoked_at IS NULL
       )
       INSERT INTO device_links (code_hash, owner, created_at, expires_at) VALUES ($2, $1, $4, $3)`,
      [owner, digest(code), expiresAt, now],
    );
    return { code, expiresAt: expiresAt.toISOString() };
  }

  /** When `owner`'s live link expires, or null when there is none. */
  async active(owner: string, now = new Date()): Promise<{ expiresAt: string } | null> {
    const { rows } = await this.pool.query<{ expires_at: Date }>(
      `SELECT expires_at FROM device_links
        WHERE owner = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2
        ORDER BY created_at DESC LIMIT 1`,
      [owner, now],
    );
    return rows[0] ? { expiresAt: rows[0].expires_at.toISOString() } : null;
  }

  /** Ends `owner`'s live link; true when there was one. */
  async revoke(owner: string, now = new Date()): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      "UPDATE device_links SET revoked_at = $2 WHERE owner = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2",
      [owner, now],
    );
    return (rowCount ?? 0) > 0;
  }

  /** The identity a live link carries, used up in the same statement; a used, revoked, expired or unknown code is a 404. */
  async redeem(code: string, now = new Date()): Promise<string> {
    const { rows } = await this.pool.query<{ owner: string }>(
      `UPDATE device_links SET used_at = $2
        WHERE code_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2
        RETURNING owner`,
      [digest(code), now],
    );
    if (!rows[0]) throw new AppError("not_found:device_link", "This link has been used, revoked or has expired. Ask for a new one on your other device.");
    return rows[0].owner;
  }
}

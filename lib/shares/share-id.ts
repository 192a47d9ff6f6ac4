import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { SHARE_ID_PATTERN } from "@/lib/protocol/shares";

// A link's id: 16 random bytes (what the database keys the link by) and the
// first 16 bytes of their HMAC-SHA-256 under the server's secret, in
// unpadded base64url. A guessed or altered id fails the signature, so a
// link is found only by someone it was given to; the lookup runs either way,
// so a forged id costs what an unknown one does.

const KEY_BYTES = 16;
const SIGNATURE_BYTES = 16;

const signature = (secret: string, key: Buffer) => createHmac("sha256", secret).update("share:").update(key).digest().subarray(0, SIGNATURE_BYTES);

/** A new link's id, and the key the database holds it by. */
export function newShareId(secret: string): { shareId: string; key: string } {
  const key = randomBytes(KEY_BYTES);
  return { shareId: Buffer.concat([key, signature(secret, key)]).toString("base64url"), key: key.toString("base64url") };
}

/**
 * The database key of a link's id, and whether its signature holds. A
 * malformed id (wrong length or alphabet, spare bits set) has no key at all.
 */
export function readShareId(shareId: string, secret: string): { key: string; signed: boolean } | null {
  if (!SHARE_ID_PATTERN.test(shareId)) return null;
  const bytes = Buffer.from(shareId, "base64url");
  if (bytes.length !== KEY_BYTES + SIGNATURE_BYTES || bytes.toString("base64url") !== shareId) return null;
  const key = bytes.subarray(0, KEY_BYTES);
  return { key: key.toString("base64url"), signed: timingSafeEqual(bytes.subarray(KEY_BYTES), signature(secret, key)) };
}

/** The id of the link the database holds by `key`, as its owner's list shows it. */
export function shareIdOf(key: string, secret: string): string {
  const bytes = Buffer.from(key, "base64url");
  return Buffer.concat([bytes, signature(secret, bytes)]).toString("base64url");
}

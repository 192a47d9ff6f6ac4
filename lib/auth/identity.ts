// Anonymous identities: a random id, signed with HMAC-SHA-256 so that a client
// cannot pick someone else's. Checked twice per request (proxy.ts, then the
// route), both on Node.js: node:crypto's HMAC is synchronous and costs a small
// part of what a Web Crypto key import and verify cost. Same bytes either way
// (the secret's UTF-8 as the key), so cookies signed before still verify.
import { createHmac, timingSafeEqual } from "node:crypto";
import { isUuid } from "@threadline/history/uuid";

export const IDENTITY_COOKIE = "threadline_id";
export const IDENTITY_MAX_AGE_SECONDS = 60 * 60 * 24 * 365;

/**
 * Exactly what signIdentity writes: a lowercase UUID (the class keeps it
 * lowercase, isUuid checks its shape), a dot, and the 32-byte HMAC in unpadded
 * base64url (43 characters). Anything else is refused before any decoding,
 * which would otherwise forgive junk such as "==", "!!" or "%20".
 */
const COOKIE_PATTERN = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

const hmac = (secret: string, id: string): Buffer => createHmac("sha256", secret).update(id).digest();

export async function signIdentity(id: string, secret: string): Promise<string> {
  return `${id}.${hmac(secret, id).toString("base64url")}`;
}

/** The identity in a cookie value, or null when it is malformed or its signature does not match. */
export async function verifyIdentity(value: string | undefined, secret: string): Promise<string | null> {
  const match = value ? COOKIE_PATTERN.exec(value) : null;
  if (!match || !isUuid(match[1])) return null;
  const [, id, encoded] = match;
  const signature = Buffer.from(encoded, "base64url");
  if (signature.toString("base64url") !== encoded) return null; // the last character's spare bits must be zero
  // 43 base64url characters are always 32 bytes, the digest's length.
  return timingSafeEqual(signature, hmac(secret, id)) ? id : null;
}

export function newIdentity(): string {
  return crypto.randomUUID();
}

/** Reads one cookie from a Cookie header, as sent: identity values never need decoding. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

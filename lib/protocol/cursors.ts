// Every cursor the REST API hands out, in one codec. A cursor is a place in
// one listing, opaque to the client, which only sends back what it was given;
// the server refuses one it could not have handed out. Each listing's cursor
// has a shape of its own, so one listing's cursor is refused by another.
// Isomorphic (no Buffer): the browser may hold these modules, though it never
// needs to look inside a cursor.
import { z } from "zod";
import { isUuid } from "@threadline/history/uuid";
import { messageId } from "./chat";

export interface CursorCodec<Place> {
  encode(place: Place): string;
  /** The place, or null when this is not a cursor of this listing. */
  decode(cursor: string): Place | null;
}

/** A whole number after a one-letter tag: "b42". */
function taggedNumber(tag: string, digits: RegExp): CursorCodec<number> {
  const shape = new RegExp(`^${tag}(${digits.source})$`);
  return {
    encode: (place) => `${tag}${place}`,
    decode: (cursor) => {
      const match = shape.exec(cursor);
      return match ? Number(match[1]) : null;
    },
  };
}

/** GET /api/threads/:id/messages: the seq the next page ends before (seqs start at 1). */
export const messagesCursor = taggedNumber("b", /[1-9][0-9]{0,15}/);

/** GET /api/search: how many results come before the next page. */
export const searchCursor = taggedNumber("o", /[0-9]{1,5}/);

/** GET /api/threads/:id/documents/:documentId/versions: the version the next page ends before (versions start at 1; stored as a 32-bit integer). */
export const documentVersionsCursor = taggedNumber("v", /[1-9][0-9]{0,8}/);

/** A place of several values, as base64url JSON; `isPlace` says whether a decoded value is one. */
function jsonCursor<Place>(isPlace: (value: unknown) => boolean): CursorCodec<Place> {
  return {
    encode: (place) => toBase64Url(JSON.stringify(place)),
    decode: (cursor) => {
      const text = fromBase64Url(cursor);
      if (text === null) return null;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return null;
      }
      return isPlace(value) ? (value as Place) : null;
    },
  };
}

/**
 * GET /api/threads: the last listed thread's updated_at as Postgres prints it
 * (a JS Date would drop the microseconds) and its id.
 */
export const threadsCursor = jsonCursor<[updatedAt: string, id: string]>(
  (value) =>
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === "string" &&
    isStoredTime(value[0], /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2}))?$/) &&
    typeof value[1] === "string" &&
    isUuid(value[1]),
);

/**
 * GET /api/feedback: the last listed feedback's time (to the microsecond),
 * thread and message: feedback changed at the same moment is neither missed
 * nor repeated by the next page.
 */
export const feedbackCursor = jsonCursor<[updatedAt: string, threadId: string, messageId: string]>(
  (value) =>
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === "string" &&
    isStoredTime(value[0], /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z$/) &&
    typeof value[1] === "string" &&
    isUuid(value[1]) &&
    messageId.safeParse(value[2]).success,
);

/**
 * Whether `text` has `shape` (groups: year, month, day, hour, minute, second,
 * and the offset's hours and minutes where it has one) and names a moment
 * Postgres can hold. A cursor that only looks like one ("2024-02-30") would
 * otherwise reach the database and fail there, as a server error rather than
 * as the client's bad cursor; the server never hands out a leap second, hour
 * 24 or year 0, so none of them is refused wrongly.
 */
export function isStoredTime(text: string, shape: RegExp): boolean {
  const match = shape.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = match.slice(1).map((n) => Number(n ?? 0));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return (
    year >= 1 &&
    days !== undefined &&
    day >= 1 &&
    day <= days &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    // Postgres's limit on a time zone's displacement.
    offsetHours <= 15 &&
    offsetMinutes <= 59
  );
}

/** A query parameter that holds a cursor of `codec`'s listing, decoded to its place. */
export function cursorParam<Place>(codec: CursorCodec<Place>) {
  return z.string().transform((cursor, ctx) => {
    const place = codec.decode(cursor);
    if (place === null) {
      ctx.addIssue({ code: "custom", message: "is not a cursor this server handed out" });
      return z.NEVER;
    }
    return place;
  });
}

function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) return null;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
  } catch {
    return null;
  }
}

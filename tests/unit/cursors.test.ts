import { describe, expect, it } from "vitest";
import { cursorParam, messagesCursor, searchCursor, threadsCursor } from "@/lib/protocol/cursors";

const place: [string, string] = ["2026-11-24 01:31:07.123456+00", "22222222-2222-4222-8222-222222222222"];

describe("the API's cursors", () => {
  it("give back the place they were made from", () => {
    expect(messagesCursor.decode(messagesCursor.encode(42))).toBe(42);
    expect(searchCursor.decode(searchCursor.encode(0))).toBe(0);
    expect(threadsCursor.decode(threadsCursor.encode(place))).toEqual(place);
  });

  it("keep the shapes clients already hold", () => {
    expect(messagesCursor.encode(3)).toBe("b3");
    expect(searchCursor.encode(20)).toBe("o20");
    // What the server handed out before the codec was isomorphic (Node's base64url).
    expect(threadsCursor.encode(place)).toBe(Buffer.from(JSON.stringify(place)).toString("base64url"));
  });

  it("refuse one listing's cursor in another, and anything the server did not hand out", () => {
    const threads = threadsCursor.encode(place);
    for (const cursor of ["o20", threads, "b0", "b", "42", "b1x", "b12345678901234567"]) expect(messagesCursor.decode(cursor), cursor).toBeNull();
    for (const cursor of ["b3", threads, "o", "o123456", "o-1"]) expect(searchCursor.decode(cursor), cursor).toBeNull();
    const tampered = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const cursor of [
      "b3",
      "not-a-cursor",
      "a",
      "%%%",
      tampered(place[0]),
      tampered([place[0], "not-a-uuid"]),
      tampered(["yesterday", place[1]]),
      tampered([...place, "extra"]),
      tampered([place[0], 7]),
    ]) {
      expect(threadsCursor.decode(cursor), cursor).toBeNull();
    }
  });

  it("decode in a query's schema, which names what is wrong", () => {
    expect(cursorParam(messagesCursor).parse("b7")).toBe(7);
    const refused = cursorParam(searchCursor).safeParse("b7");
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0].message).toBe("is not a cursor this server handed out");
  });
});

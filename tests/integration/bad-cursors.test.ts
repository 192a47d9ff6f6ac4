import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { request, visitor } from "../support/api";
import * as feedbackListRoute from "@/app/api/feedback/route";
import * as threadsRoute from "@/app/api/threads/route";
import { feedbackCursor, threadsCursor } from "@/lib/protocol/cursors";
import { integrationApp } from "../support/integration";

// A cursor shaped like one the server hands out but naming a time that does
// not exist is the client's mistake: a 400, as any other cursor the server
// could not have handed out, never the database's refusal answered as a 500.

const t = integrationApp({ model: "offline" });

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

describe("a cursor naming an impossible time", () => {
  const impossible = ["2024-02-30", "2023-02-29", "2024-04-31", "2024-13-01", "0000-01-01"];

  it("is refused by GET /api/threads with 400 bad_request:cursor, while a real leap day still pages", async () => {
    const me = await visitor();
    const list = (cursor: string) => threadsRoute.GET(request(`/api/threads?cursor=${encodeURIComponent(cursor)}`, { cookie: me.cookie }), undefined as never);
    const refused = [
      ...impossible.map((day) => threadsCursor.encode([`${day} 10:00:00.123456+00`, randomUUID()])),
      threadsCursor.encode(["2024-01-01 24:00:00+00", randomUUID()]),
      threadsCursor.encode(["2024-01-01 23:60:00+00", randomUUID()]),
      threadsCursor.encode(["2024-01-01 10:00:00+16", randomUUID()]),
    ];
    for (const cursor of refused) {
      const response = await list(cursor);
      expect(response.status, cursor).toBe(400);
      expect((await errorOf(response)).code).toBe("bad_request:cursor");
    }
    const leapDay = await list(threadsCursor.encode(["2024-02-29 10:00:00.123456+05:30", randomUUID()]));
    expect(leapDay.status).toBe(200);
    expect(await leapDay.json()).toEqual({ threads: [], nextCursor: null });
  });

  it("is refused by GET /api/feedback with 400, as is a 'since' Postgres cannot hold, while a real leap day still pages", async () => {
    const me = await visitor();
    const list = (query: string) => feedbackListRoute.GET(request(`/api/feedback?${query}`, { cookie: me.cookie }), undefined as never);
    for (const day of impossible) {
      const response = await list(`cursor=${feedbackCursor.encode([`${day}T10:00:00.123456Z`, randomUUID(), "m1"])}`);
      expect(response.status, day).toBe(400);
      expect(await errorOf(response)).toEqual({ code: "bad_request:validation", message: "cursor: is not a cursor this server handed out" });
    }
    for (const since of ["0000-01-01T00:00:00Z", "2024-01-01T00:00:00+16:00", "2024-02-30T00:00:00Z"]) {
      const response = await list(`since=${encodeURIComponent(since)}`);
      expect(response.status, since).toBe(400);
      expect((await errorOf(response)).message).toMatch(/^since: must be an ISO 8601 time/);
    }
    const leapDay = await list(`cursor=${feedbackCursor.encode(["2024-02-29T10:00:00.123456Z", randomUUID(), "m1"])}`);
    expect(leapDay.status).toBe(200);
    expect(await leapDay.json()).toEqual({ feedback: [], next: null });
  });
});

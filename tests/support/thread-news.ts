import { randomUUID } from "node:crypto";
import type pg from "pg";
import { expect, inject } from "vitest";
import type { App } from "@/lib/app";
import type { ThreadNews } from "@/lib/protocol/threads";
import { request } from "./api";

type EventsRoute = { GET: (request: Request, context: undefined) => Promise<Response> };

/**
 * A visitor's events stream (GET /api/threads/events), read one ThreadNews at
 * a time, from the moment it is settled: news of what happened before it
 * opened, still on its way through the database's listener, is dropped.
 */
export async function followNews(eventsRoute: EventsRoute, app: App, pool: pg.Pool, cookie: string, owner: string) {
  const abort = new AbortController();
  const response = await eventsRoute.GET(request("/api/threads/events", { cookie, signal: abort.signal }), undefined);
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const comments: string[] = [];
  const next = async (): Promise<ThreadNews> => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.startsWith(":")) comments.push(frame);
        else return JSON.parse(frame.replace(/^data: /, "")) as ThreadNews;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended");
      buffer += value;
    }
  };
  // A probe sent after everything before: once it is heard, what follows is new.
  const probe = randomUUID();
  if (inject("embeddedDatabase")) app.liveBus().emit("threads", owner, probe);
  else {
    await app.listening();
    await pool.query("SELECT pg_notify('threadline_threads', $1)", [JSON.stringify({ owner, threadId: probe })]);
  }
  while ((await next()).threadId !== probe);
  return { response, abort: () => abort.abort(), comments, reader, next };
}

import { randomUUID } from "node:crypto";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { params, visitor } from "../support/api";
import { proxy } from "@/proxy";
import * as thread from "@/app/api/threads/[id]/route";
import * as stop from "@/app/api/threads/[id]/stop/route";
import * as links from "@/app/api/device-links/route";
import { integrationApp } from "../support/integration";

// Requests that send nothing (delete a thread, stop a reply, make or revoke a
// device link) as curl and browsers send them: through proxy.ts, then the route
// when the proxy passes them on, against the real database.
const t = integrationApp({ modelUrl: "http://127.0.0.1:9/v1" });
const APP = "http://127.0.0.1:3000";

type Handler = (request: NextRequest, context: never) => Promise<Response>;

/** Sends the request as the server does: the proxy first, the route only if the proxy lets it through. */
async function send(handler: Handler, context: unknown, path: string, init: { method: string; headers?: Record<string, string>; body?: string }) {
  const request = new NextRequest(`${APP}${path}`, {
    method: init.method,
    headers: { host: "127.0.0.1:3000", ...init.headers },
    // Bytes, not a string: a string body would make the Request name a type of its own.
    body: init.body === undefined ? undefined : new TextEncoder().encode(init.body),
  });
  const answer = await proxy(request);
  return answer.headers.get("x-middleware-next") === "1" ? handler(request, context as never) : answer;
}

async function ownThread(owner: string): Promise<string> {
  const id = randomUUID();
  await t.pool.query("INSERT INTO threads (id, owner, title) VALUES ($1, $2, 'to delete')", [id, owner]);
  return id;
}
const exists = async (id: string) => (await t.pool.query("SELECT 1 FROM threads WHERE id = $1", [id])).rowCount === 1;

// What each client sends with no body: curl nothing at all; a browser's fetch
// Sec-Fetch-Site and Origin, and Content-Length: 0 on a POST.
const curl = {};
const browser = (method: string) => ({
  "sec-fetch-site": "same-origin",
  "sec-fetch-mode": "cors",
  origin: APP,
  ...(method === "POST" ? { "content-length": "0" } : {}),
});

describe("a request without a body needs no Content-Type", () => {
  for (const [client, headers] of [
    ["curl", () => curl],
    ["a same-origin fetch", browser],
  ] as const) {
    it(`deletes a thread and stops its reply from ${client}`, async () => {
      const me = await visitor();
      const id = await ownThread(me.id);
      const stopped = await send(stop.POST, params(id), `/api/threads/${id}/stop`, { method: "POST", headers: { cookie: me.cookie, ...headers("POST") } });
      expect(stopped.status).toBe(202);
      expect(await stopped.json()).toEqual({ stopped: false });

      const deleted = await send(thread.DELETE, params(id), `/api/threads/${id}`, { method: "DELETE", headers: { cookie: me.cookie, ...headers("DELETE") } });
      expect(deleted.status).toBe(204);
      expect(await exists(id)).toBe(false);
    });

    it(`makes and revokes a device link from ${client}`, async () => {
      const me = await visitor();
      const made = await send(links.POST, undefined, "/api/device-links", { method: "POST", headers: { cookie: me.cookie, ...headers("POST") } });
      expect(made.status).toBe(201);
      expect((await made.json()).link.code).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const revoked = await send(links.DELETE, undefined, "/api/device-links", { method: "DELETE", headers: { cookie: me.cookie, ...headers("DELETE") } });
      expect(revoked.status).toBe(204);
      const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM device_links WHERE owner = $1 AND revoked_at IS NULL", [me.id]);
      expect(rows[0].n).toBe(0);
    });
  }
});

describe("a request that sends something must send JSON", () => {
  it("refuses a body of another type, or of no type, with 415 and leaves the thread alone", async () => {
    const me = await visitor();
    const id = await ownThread(me.id);
    const cases: [string, Record<string, string>, string | undefined][] = [
      ["text", { "content-type": "text/plain;charset=UTF-8", "content-length": "5" }, "hello"],
      ["an empty form", { "content-type": "application/x-www-form-urlencoded", "content-length": "0" }, undefined],
      ["no type", { "content-length": "5" }, "hello"],
      ["chunked, no type", { "transfer-encoding": "chunked" }, "hello"],
    ];
    for (const [name, headers, body] of cases) {
      const base = { cookie: me.cookie, ...browser("POST"), ...headers };
      const deleted = await send(thread.DELETE, params(id), `/api/threads/${id}`, { method: "DELETE", headers: base, body });
      expect(deleted.status, `DELETE with ${name}`).toBe(415);
      expect((await deleted.json()).error.code).toBe("unsupported_media_type:body");
      const stopped = await send(stop.POST, params(id), `/api/threads/${id}/stop`, { method: "POST", headers: base, body });
      expect(stopped.status, `stop with ${name}`).toBe(415);
    }
    expect(await exists(id)).toBe(true);
  });

  it("accepts a JSON body where none is needed, as browsers and older clients send it", async () => {
    const me = await visitor();
    const id = await ownThread(me.id);
    const headers = { cookie: me.cookie, ...browser("DELETE"), "content-type": "application/json", "content-length": "2" };
    const deleted = await send(thread.DELETE, params(id), `/api/threads/${id}`, { method: "DELETE", headers, body: "{}" });
    expect(deleted.status).toBe(204);
  });
});

describe("a bodiless request from another site", () => {
  it("is refused with 403 and changes nothing", async () => {
    const me = await visitor();
    const id = await ownThread(me.id);
    const crossSite: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", origin: "http://evil.example" },
      { "sec-fetch-site": "same-site", origin: "http://127.0.0.1:4000" },
      { origin: "http://evil.example" }, // a browser without Sec-Fetch-*
    ];
    for (const headers of crossSite) {
      const deleted = await send(thread.DELETE, params(id), `/api/threads/${id}`, { method: "DELETE", headers: { cookie: me.cookie, ...headers } });
      expect(deleted.status, JSON.stringify(headers)).toBe(403);
      expect((await deleted.json()).error.code).toBe("forbidden:origin");
      const stopped = await send(stop.POST, params(id), `/api/threads/${id}/stop`, { method: "POST", headers: { cookie: me.cookie, "content-length": "0", ...headers } });
      expect(stopped.status, JSON.stringify(headers)).toBe(403);
      const revoked = await send(links.DELETE, undefined, "/api/device-links", { method: "DELETE", headers: { cookie: me.cookie, ...headers } });
      expect(revoked.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await exists(id)).toBe(true);
  });
});

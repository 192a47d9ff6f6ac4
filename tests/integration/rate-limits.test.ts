import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { NextRequest } from "next/server";
import { beforeEach, describe, expect, it } from "vitest";
import { request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import { proxy } from "@/proxy";
import { integrationApp } from "../support/integration";

// Limits counted in Postgres: small limits here, so a short burst crosses them.
let address: string;
const limits = {
  RATE_LIMIT_CHAT_PER_MINUTE: "3",
  RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: "5",
  RATE_LIMIT_NEW_IDENTITIES_PER_HOUR: "2",
};
const t = integrationApp({ settings: limits });

beforeEach(() => {
  address = `203.0.113.${Math.floor(Math.random() * 250)}-${randomUUID()}`; // one network per test
});

async function send(cookie: string, content = "hello") {
  const req = request("/api/chat", { method: "POST", cookie, json: { message: { id: randomUUID(), content } } });
  req.headers.set("x-threadline-client-address", address);
  const response = await chat.POST(req, undefined);
  if (response.ok) await response.text(); // let the turn finish
  return response;
}

describe("chat turns", () => {
  it("answer a burst past the identity's limit with 429, Retry-After and a message for the thread, and call no model for it", async () => {
    const me = await visitor();
    for (let i = 0; i < 3; i++) expect((await send(me.cookie)).status).toBe(200);
    const refused = await send(me.cookie, "one too many");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    const body = await refused.json();
    expect(body.error.code).toBe("rate_limited:chatPerIdentity");
    expect(body.error.message).toMatch(/faster than this server allows\. Try again in \d+ seconds?\./);
    expect(t.mock.requests).toHaveLength(3);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM messages m JOIN threads t ON t.id = m.thread_id WHERE t.owner = $1 AND m.content = 'one too many'", [me.id]);
    expect(rows[0].n).toBe(0);
  });

  it("never limit a normal conversation", async () => {
    const me = await visitor();
    for (let i = 0; i < 3; i++) expect((await send(me.cookie, `turn ${i}`)).status).toBe(200);
  });

  it("limit an address across identities: new cookies do not reset the count", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send((await visitor()).cookie)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("are counted in the database, so another app process sees the same count", async () => {
    const me = await visitor();
    for (let i = 0; i < 2; i++) expect((await send(me.cookie)).status).toBe(200);
    const { rows } = await t.pool.query("SELECT points FROM rate_limits WHERE key = $1", [`chatPerIdentity:${me.id}`]);
    expect(rows).toEqual([{ points: 2 }]);
    // What a second app process starts with: no limiter objects, only the database's count.
    await t.configure({});
    expect((await send(me.cookie)).status).toBe(200);
    expect((await send(me.cookie)).status).toBe(429);
  });
});

describe("new identities", () => {
  function firstVisit(cookie?: string) {
    const headers = new Headers({ host: "127.0.0.1:3000", "sec-fetch-site": "none", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document", "x-threadline-client-address": address });
    if (cookie) headers.set("cookie", cookie);
    return proxy(new NextRequest("http://127.0.0.1:3000/", { headers }));
  }

  it("are limited per address: dropping the cookie again and again is refused with 429, while an existing visitor goes on", async () => {
    expect((await firstVisit()).headers.get("set-cookie")).toContain("threadline_id=");
    expect((await firstVisit()).headers.get("set-cookie")).toContain("threadline_id=");
    const refused = await firstVisit();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.headers.get("set-cookie")).toBeNull();
    const existing = await firstVisit((await visitor()).cookie);
    expect(existing.headers.get("x-middleware-next")).toBe("1");
  });
});

describe("the client address", () => {
  it("comes from the socket, whatever the client claims in headers", async () => {
    const server = spawn(
      process.execPath,
      ["--import", "./scripts/client-address.mjs", "-e", `require("node:http").createServer((q, s) => s.end(q.headers["x-threadline-client-address"] ?? "none")).listen(0, "127.0.0.1", function () { console.log(this.address().port) })`],
      { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, TRUSTED_PROXY_HOPS: "0" } },
    );
    try {
      const port = await new Promise<string>((resolve) => server.stdout!.once("data", (d) => resolve(String(d).trim())));
      const answer = await fetch(`http://127.0.0.1:${port}/`, { headers: { "x-threadline-client-address": "198.51.100.7", "x-forwarded-for": "198.51.100.8" } });
      expect(await answer.text()).toBe("127.0.0.1");
    } finally {
      server.kill();
    }
  });
});

import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { IDENTITY_COOKIE, verifyIdentity } from "@/lib/auth/identity";
import { SESSION_SECRET, request, visitor } from "../support/api";
import * as links from "@/app/api/device-links/route";
import * as claim from "@/app/api/device-links/claim/route";
import * as list from "@/app/api/threads/route";
import { DeviceLinks } from "@/lib/auth/device-links";
import { integrationApp } from "../support/integration";

// "Use on another device": one-time links that carry an identity to another browser.
const t = integrationApp({ modelUrl: "http://127.0.0.1:9/v1" });

async function makeLink(cookie: string): Promise<{ code: string; expiresAt: string }> {
  const response = await links.POST(request("/api/device-links", { method: "POST", cookie, json: {} }), undefined);
  expect(response.status).toBe(201);
  return (await response.json()).link;
}

/** Claims a code from a browser that has an identity of its own; returns the status and the identity it now holds. */
async function claimFrom(code: unknown) {
  const other = await visitor();
  const response = await claim.POST(request("/api/device-links/claim", { method: "POST", cookie: other.cookie, json: { code } }), undefined);
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  const identity = cookie ? await verifyIdentity(cookie.slice(IDENTITY_COOKIE.length + 1), SESSION_SECRET) : null;
  return { status: response.status, identity, cookie, body: await response.json() };
}

describe("device links", () => {
  it("carry an identity, with its threads, to another browser, once", async () => {
    const me = await visitor();
    const threadId = randomUUID();
    await t.pool.query("INSERT INTO threads (id, owner, title, message_count) VALUES ($1, $2, 'carried over', 2)", [threadId, me.id]);
    const { code, expiresAt } = await makeLink(me.cookie);
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Date(expiresAt).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const active = await (await links.GET(request("/api/device-links", { cookie: me.cookie }), undefined)).json();
    expect(active).toEqual({ link: { expiresAt } });

    const used = await claimFrom(code);
    expect(used.status).toBe(200);
    expect(used.identity).toBe(me.id);
    expect(used.cookie).toBeDefined();
    const listed = await (await list.GET(request("/api/threads", { cookie: used.cookie! }), undefined)).json();
    expect(listed.threads.map((t: { id: string }) => t.id)).toEqual([threadId]);

    const again = await claimFrom(code);
    expect(again.status).toBe(404);
    expect(again.identity).toBeNull();
    expect((await (await links.GET(request("/api/device-links", { cookie: me.cookie }), undefined)).json()).link).toBeNull();
  });

  it("stop working when revoked, replaced by a newer link, or expired", async () => {
    const me = await visitor();
    const revoked = await makeLink(me.cookie);
    expect((await links.DELETE(request("/api/device-links", { method: "DELETE", cookie: me.cookie }), undefined)).status).toBe(204);
    expect((await claimFrom(revoked.code)).status).toBe(404);

    const expired = await new DeviceLinks(t.pool).create(me.id, new Date(Date.now() - 25 * 3600_000));
    expect((await claimFrom(expired.code)).status).toBe(404);

    const replaced = await makeLink(me.cookie);
    const current = await makeLink(me.cookie);
    expect((await claimFrom(replaced.code)).status).toBe(404);
    expect((await claimFrom(current.code)).identity).toBe(me.id);
  });

  it("refuse a malformed code with 400 and an unknown one with 404, setting no cookie", async () => {
    const malformed = await claimFrom("not a code");
    expect(malformed.status).toBe(400);
    expect(malformed.cookie).toBeUndefined();
    const unknown = await claimFrom("A".repeat(43));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found:device_link");
    expect(unknown.cookie).toBeUndefined();
  });

  it("are made only for a valid identity", async () => {
    const response = await links.POST(request("/api/device-links", { method: "POST", json: {} }), undefined);
    expect(response.status).toBe(401);
  });
});

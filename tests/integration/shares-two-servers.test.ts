import { beforeAll, describe, expect, inject, it } from "vitest";
import type { SharedLink } from "@/lib/protocol/shares";
import { appServers } from "../support/app-servers";
import { send, type Answer, type StartedApp } from "../support/production-app";
import { SECRETS, SHOWN, sharedThreadFile } from "../support/shared-thread";

// A share link between two app servers as `npm start` runs them, reached over
// real HTTP the way a browser with no cookie reaches it: the page made by one
// server opens on the other with its headers (never indexed, no referrer, a
// nonce CSP, a minute in a cache) and no cookie, shows what the link shows
// and nothing it hides; revoked on one, it is gone on the other at once.

/** What the link's default options hide. */
const HIDDEN = Object.values(SECRETS).filter((secret) => secret !== SECRETS.document);

describe.skipIf(inject("embeddedDatabase"))("share links across two app servers", () => {
  const servers = appServers({ count: 2 });
  let a: StartedApp;
  let b: StartedApp;
  let link: SharedLink;
  beforeAll(async () => {
    [a, b] = servers().apps;
    const { cookie } = servers();
    const imported = await send(a.port, "POST", "/api/threads/import", { cookie, json: sharedThreadFile() });
    expect(imported.status).toBe(201);
    const threadId = JSON.parse(await imported.text()).thread.id as string;
    const made = await send(a.port, "POST", `/api/threads/${threadId}/shares`, { cookie, json: { expiresInDays: 7 } });
    expect(made.status).toBe(201);
    link = JSON.parse(await made.text()).share;
  });

  const path = () => new URL(link.url).pathname;
  const expectShared = (answer: Answer) => {
    expect(answer.headers["set-cookie"]).toBeUndefined();
    expect(answer.headers["x-robots-tag"]).toBe("noindex, nofollow");
    expect(answer.headers["referrer-policy"]).toBe("no-referrer");
  };

  it("opens on the other server with no cookie: its headers, its meta tag, what it shows and nothing it hides", async () => {
    const page = await send(b.port, "GET", path());
    expect(page.status).toBe(200);
    expectShared(page);
    expect(page.headers["cache-control"]).toBe("public, max-age=60, s-maxage=60");
    const csp = String(page.headers["content-security-policy"]);
    const nonce = /script-src 'self' 'nonce-([^']+)' 'strict-dynamic'/.exec(csp)?.[1];
    expect(nonce, csp).toBeDefined();
    expect(csp).not.toContain("unsafe-inline");
    const html = await page.text();
    expect(html).toMatch(/<meta name="robots" content="noindex, nofollow"/);
    // Every script the page runs carries the response's nonce.
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((tag) => tag[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    expect(html).toContain(SHOWN.question);
    expect(html).toContain(SHOWN.answer);
    expect(html).toContain("Continue this conversation");
    for (const secret of HIDDEN) expect(html, secret).not.toContain(secret);

    const markdown = await send(b.port, "GET", `${path()}/markdown`);
    expect(markdown.status).toBe(200);
    expectShared(markdown);
    expect(markdown.headers["content-type"]).toBe("text/markdown; charset=utf-8");
    expect(markdown.headers["content-security-policy"]).toContain("sandbox");
    const text = await markdown.text();
    expect(text).toContain(SHOWN.answer);
    for (const secret of HIDDEN) expect(text, secret).not.toContain(secret);
  });

  it("revoked on one server is gone on the other at once (410); an unknown link is 404; neither sets a cookie", async () => {
    expect((await send(b.port, "GET", path())).status).toBe(200);
    const revoked = await send(a.port, "DELETE", `/api/shares/${link.id}`, { cookie: servers().cookie });
    expect(revoked.status).toBe(204);
    const gone = await send(b.port, "GET", path());
    expect(gone.status).toBe(410);
    expectShared(gone);
    const goneHtml = await gone.text();
    expect(goneHtml).toContain("This link is no longer available");
    expect(goneHtml).not.toContain(SHOWN.answer);
    expect((await send(b.port, "GET", `${path()}/markdown`)).status).toBe(410);

    const unknownId = `${link.id.slice(0, 10)}${link.id[10] === "A" ? "B" : "A"}${link.id.slice(11)}`;
    const unknown = await send(b.port, "GET", `/s/${unknownId}`);
    expect(unknown.status).toBe(404);
    expectShared(unknown);
    expect(await unknown.text()).toContain("Link not found");
  });
});

import { NextRequest } from "next/server";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import { visitor } from "../support/api";
import { config, proxy } from "@/proxy";
import { integrationApp } from "../support/integration";

// proxy.ts runs before every page and API route; these drive it with the
// headers a browser sends in each situation (Sec-Fetch-*, Origin).
const APP = "http://127.0.0.1:3000";
const t = integrationApp({ modelUrl: "http://127.0.0.1:9/v1" });

function browserRequest(path: string, init: { method?: string; headers?: Record<string, string>; cookie?: string } = {}) {
  const headers = new Headers({ host: "127.0.0.1:3000", ...init.headers });
  if (init.cookie) headers.set("cookie", init.cookie);
  return new NextRequest(`${APP}${path}`, { method: init.method ?? "GET", headers });
}

const navigation = (site: string) => ({ "sec-fetch-site": site, "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" });
const passedOn = (response: Response) => response.headers.get("x-middleware-next") === "1";
const setCookie = (response: Response) => response.headers.get("set-cookie");

describe("identity: minted only where it cannot replace anyone's", () => {
  it("is given on a first visit to a page, typed in or from a link on another site", async () => {
    for (const site of ["none", "same-origin", "cross-site"]) {
      const response = await proxy(browserRequest("/", { headers: navigation(site) }));
      expect(passedOn(response), site).toBe(true);
      expect(setCookie(response), site).toMatch(/^threadline_id=[0-9a-f-]{36}\.[\w-]{43}; .*HttpOnly/i);
    }
  });

  it("is never set by a cross-site POST (an auto-submitting form), which is refused", async () => {
    const response = await proxy(
      browserRequest("/api/chat", { method: "POST", headers: { ...navigation("cross-site"), origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" } }),
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { code: "forbidden:origin", message: "This request came from another site and was refused." } });
    expect(setCookie(response)).toBeNull();
  });

  it("is not minted by a cross-site subresource or a same-origin POST without a cookie", async () => {
    const image = await proxy(browserRequest("/", { headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" } }));
    expect(setCookie(image)).toBeNull();
    const post = await proxy(browserRequest("/api/chat", { method: "POST", headers: { "sec-fetch-site": "same-origin", "content-type": "application/json" } }));
    expect(passedOn(post)).toBe(true); // the route answers 401: "reload the page"
    expect(setCookie(post)).toBeNull();
  });

  it("keeps a valid identity as it is", async () => {
    const { cookie } = await visitor();
    const response = await proxy(browserRequest("/", { headers: navigation("same-origin"), cookie }));
    expect(passedOn(response)).toBe(true);
    expect(setCookie(response)).toBeNull();
  });
});

describe("state-changing requests from another origin (CSRF)", () => {
  it("refuses another port of the same host, a foreign or null Origin, and accepts this origin", async () => {
    const { cookie } = await visitor();
    const json = { "content-type": "application/json" };
    const cases: [Record<string, string>, number][] = [
      [{ "sec-fetch-site": "same-site", origin: "http://127.0.0.1:4000" }, 403],
      [{ "sec-fetch-site": "cross-site", origin: "http://localhost:3000" }, 403],
      [{ origin: "http://127.0.0.1:4000" }, 403], // a browser without Sec-Fetch-*
      [{ origin: "null" }, 403],
      [{ origin: APP }, 200],
      [{ "sec-fetch-site": "same-origin", origin: APP }, 200],
      [{}, 200], // not a browser: no ambient cookie to abuse
    ];
    for (const method of ["POST", "PATCH", "DELETE"]) {
      for (const [headers, expected] of cases) {
        const response = await proxy(browserRequest("/api/threads/x", { method, headers: { ...json, ...headers }, cookie }));
        expect(response.status, `${method} ${JSON.stringify(headers)}`).toBe(expected);
      }
    }
  });

  it("refuses a same-origin state change whose body is not JSON (what a no-cors fetch or a form sends)", async () => {
    const { cookie } = await visitor();
    for (const type of [undefined, "text/plain;charset=UTF-8", "multipart/form-data; boundary=x", "application/jsonx"]) {
      const headers: Record<string, string> = { "sec-fetch-site": "same-origin", "content-length": "9", ...(type ? { "content-type": type } : {}) };
      const response = await proxy(browserRequest("/api/chat", { method: "POST", headers, cookie }));
      expect(response.status, String(type)).toBe(415);
    }
  });
});

describe("Content-Security-Policy", () => {
  it("gives every page a policy with a fresh nonce, handed to Next.js to put on its scripts", async () => {
    const policies = await Promise.all(
      [1, 2].map(async () => {
        const response = await proxy(browserRequest("/", { headers: navigation("same-origin") }));
        const policy = response.headers.get("content-security-policy")!;
        expect(response.headers.get("x-middleware-request-content-security-policy")).toBe(policy);
        return policy;
      }),
    );
    for (const policy of policies) {
      expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}' 'strict-dynamic'(;|$)/);
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain("unsafe-eval");
      expect(policy).not.toContain("unsafe-inline");
    }
    expect(policies[0]).not.toBe(policies[1]);
  });
});

describe("where the proxy runs", () => {
  // The matcher as Next reads it (its own testing helper).
  const runsFor = (url: string) => unstable_doesMiddlewareMatch({ config, url });

  it("runs before pages and every API route but a turn's and an import's, which check the origin and the body themselves (chat-api.test.ts, costly-routes.test.ts)", async () => {
    for (const path of ["/", "/c/0b9e6a53-8a0f-4c4e-9a43-4a0d2f1f7a11", "/api/threads", "/api/threads/x/stop", "/api/search", "/api/device-links", "/api/chats", "/api/chat/x", "/api/threads/imports"]) {
      expect(await runsFor(path), path).toBe(true);
    }
    for (const path of ["/api/chat", "/api/threads/import", "/api/health", "/api/inngest", "/_next/static/x.js", "/favicon.ico", "/manifest.webmanifest"]) {
      expect(await runsFor(path), path).toBe(false);
    }
  });
});

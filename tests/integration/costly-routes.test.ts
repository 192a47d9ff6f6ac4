import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address.mjs";
import { limits } from "@/lib/limits";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import { params, request, visitor } from "../support/api";
import { versionedThread } from "../support/versioned-thread";
import * as fork from "@/app/api/threads/[id]/fork/route";
import * as importRoute from "@/app/api/threads/import/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as chat from "@/app/api/chat/route";
import * as upload from "@/app/api/files/route";
import { integrationApp } from "../support/integration";

// What a fork, an import or an upload costs the operator is bounded per identity and per
// address, and no route reads a big body before it knows who sent it.
const t = integrationApp({ model: "offline", settings: {
      RATE_LIMIT_FORKS_PER_MINUTE: "2",
      RATE_LIMIT_FORKS_PER_MINUTE_PER_ADDRESS: "3",
      RATE_LIMIT_IMPORTS_PER_HOUR: "2",
      RATE_LIMIT_IMPORTS_PER_HOUR_PER_ADDRESS: "3",
      RATE_LIMIT_UPLOADS_PER_HOUR: "2",
      RATE_LIMIT_UPLOADS_PER_HOUR_PER_ADDRESS: "3",
    } });
let address: string;

beforeEach(() => {
  address = `198.51.100.${Math.floor(Math.random() * 250)}-${randomUUID()}`; // one network per test
});

const fromAddress = (req: Request) => {
  req.headers.set(CLIENT_ADDRESS_HEADER, address);
  return req;
};
const forkOf = (threadId: string, cookie: string) =>
  fork.POST(fromAddress(request(`/api/threads/${threadId}/fork`, { method: "POST", cookie, json: { messageId: "u2" } })), params(threadId));
const importAs = (cookie: string, file: unknown) => importRoute.POST(fromAddress(request("/api/threads/import", { method: "POST", cookie, json: file })), undefined);
const threadsOf = async (owner: string) => (await t.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM threads WHERE owner = $1", [owner])).rows[0].n;

async function exportedFile(): Promise<ThreadExport> {
  const me = await visitor();
  const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);
  const response = await exportRoute.GET(request(`/api/threads/${threadId}/export?format=json`, { cookie: me.cookie }), params(threadId));
  return response.json();
}

async function expectRefused(response: Response, code: string, message: RegExp) {
  expect(response.status).toBe(429);
  const wait = Number(response.headers.get("retry-after"));
  expect(wait).toBeGreaterThan(0);
  expect((await response.json()).error).toMatchObject({ code, message: expect.stringMatching(message) });
}

describe("forks", () => {
  it("past the identity's limit answer 429 with Retry-After, and copy nothing", async () => {
    const me = await visitor();
    const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), me.id);
    for (let i = 0; i < 2; i++) expect((await forkOf(threadId, me.cookie)).status).toBe(201);
    await expectRefused(await forkOf(threadId, me.cookie), "rate_limited:forkPerIdentity", /forking threads faster .* Try again in \d+ seconds?\./);
    expect(await threadsOf(me.id)).toBe(3); // the thread and two forks
  });

  it("are limited per address across identities", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const someone = await visitor();
      const { threadId } = await versionedThread(new PostgresHistoryAdapter(t.pool), someone.id);
      statuses.push((await forkOf(threadId, someone.cookie)).status);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
  });
});

describe("imports", () => {
  it("past the identity's limit answer 429 with Retry-After before the file is read, and store nothing", async () => {
    const file = await exportedFile();
    const me = await visitor();
    for (let i = 0; i < 2; i++) expect((await importAs(me.cookie, file)).status).toBe(201);
    // Even a file that is not JSON: the count comes before the body.
    const refused = importRoute.POST(
      fromAddress(request("/api/threads/import", { method: "POST", cookie: me.cookie, headers: { "content-type": "application/json" }, body: "{ not json" })),
      undefined,
    );
    await expectRefused(await refused, "rate_limited:importPerIdentity", /importing threads faster .* Try again in \d+ minutes\./);
    expect(await threadsOf(me.id)).toBe(2);
  });

  it("from another site are refused with 403, as the proxy would, and store nothing", async () => {
    const file = await exportedFile();
    const me = await visitor();
    const headers = { "sec-fetch-site": "cross-site", origin: "http://evil.example", "content-type": "application/json" };
    const response = await importRoute.POST(fromAddress(request("/api/threads/import", { method: "POST", cookie: me.cookie, headers, body: JSON.stringify(file) })), undefined);
    expect(response.status).toBe(403);
    expect((await response.json()).error.code).toBe("forbidden:origin");
    expect(await threadsOf(me.id)).toBe(0);
  });

  it("are limited per address across identities", async () => {
    const file = await exportedFile();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await importAs((await visitor()).cookie, file)).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
  });
});

/** A request whose body is a stream that counts the bytes the handler took from it; no Content-Length unless `declared`. */
function countedRequest(path: string, options: { cookie?: string; bytes: number; declared?: number }) {
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024)); // not JSON: parsed, it would be a 400
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= options.bytes) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const headers = new Headers({ "content-type": "application/json" });
  if (options.cookie) headers.set("cookie", options.cookie);
  if (options.declared !== undefined) headers.set("content-length", String(options.declared));
  const req = new Request(`http://localhost${path}`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
  return { req, taken: () => sent };
}

describe("a big body", () => {
  const threadId = randomUUID();
  const routes = [
    { name: "POST /api/chat", path: "/api/chat", size: limits.maxBodyBytes, call: (req: Request) => chat.POST(req, undefined) },
    { name: "POST /api/threads/import", path: "/api/threads/import", size: 8 * 1024 * 1024, call: (req: Request) => importRoute.POST(req, undefined) },
    { name: "POST /api/threads/:id/fork", path: `/api/threads/${threadId}/fork`, size: 16 * 1024, call: (req: Request) => fork.POST(req, params(threadId)) },
  ];

  it.each(routes)("without an identity is refused by $name with 401, none of it read", async ({ path, size, call }) => {
    const { req, taken } = countedRequest(path, { bytes: size });
    const response = await call(req);
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe("unauthorized:identity");
    // The stream may have been asked for its first chunk (a reader primes it), never for the rest.
    expect(taken()).toBeLessThanOrEqual(64 * 1024);
  });

  // An import's file is read as it arrives, up to the thread file's limit (128 MB): thread-file-limits.test.ts checks its cap.
  const capped = routes.filter((r) => r.path !== "/api/threads/import");

  it.each(capped)("declared larger than its cap is refused by $name with 413 before it is read", async ({ path, size, call }) => {
    const me = await visitor();
    const { req, taken } = countedRequest(path, { cookie: me.cookie, bytes: size + 1, declared: size + 1 });
    const response = await call(req);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe("payload_too_large:body");
    expect(taken()).toBeLessThanOrEqual(64 * 1024);
  });

  it.each(capped)("of no declared size is read by $name only up to its cap", async ({ path, size, call }) => {
    const me = await visitor();
    const { req, taken } = countedRequest(path, { cookie: me.cookie, bytes: size * 4 });
    const response = await call(req);
    expect(response.status).toBe(413);
    expect(taken()).toBeLessThanOrEqual(size + 2 * 64 * 1024);
  });
});

describe("uploads", () => {
  const put = (cookie: string, text: string) =>
    upload.POST(fromAddress(request("/api/files", { method: "POST", cookie, body: text, headers: { "x-file-name": "note.txt" } })), undefined as never);
  const filesOf = async (owner: string) => (await t.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM files WHERE owner = $1", [owner])).rows[0].n;

  it("past the identity's limit answer 429 with Retry-After, and store nothing", async () => {
    const me = await visitor();
    for (let i = 0; i < 2; i++) expect((await put(me.cookie, `note ${i}`)).status).toBe(201);
    await expectRefused(await put(me.cookie, "one more"), "rate_limited:uploadPerIdentity", /uploading files faster .* Try again in \d+ minutes?\./);
    expect(await filesOf(me.id)).toBe(2);
  });

  it("are limited per address across identities", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await put((await visitor()).cookie, `note ${i}`)).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
  });
});

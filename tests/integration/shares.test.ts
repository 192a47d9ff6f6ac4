import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import * as chat from "@/app/api/chat/route";
import * as importRoute from "@/app/api/threads/import/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as makeShare from "@/app/api/threads/[id]/shares/route";
import * as listShares from "@/app/api/shares/route";
import * as oneShare from "@/app/api/shares/[shareId]/route";
import * as continueShare from "@/app/api/shares/[shareId]/continue/route";
import * as markdown from "@/app/s/[shareId]/markdown/route";
import * as sharedFile from "@/app/s/[shareId]/files/[fileId]/route";
import { proxy } from "@/proxy";
import type { ShareResponse, SharesResponse, SharedLink } from "@/lib/protocol/shares";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import { SHARE_STATE_HEADER } from "@/lib/shares/share-state";
import { shareIdOf } from "@/lib/shares/share-id";
import { chatTurn, params, request, SESSION_SECRET, visitor } from "../support/api";
import { integrationApp } from "../support/integration";
import { SECRETS, SHOWN, sharedThreadFile } from "../support/shared-thread";

// Share links as their routes serve them: a snapshot of the active branch
// with what its options hide taken out before it is stored, opened without a
// cookie, revoked and expired as 410, forged or unknown as 404, continued as
// another person's thread holding exactly what the link shows.
const t = integrationApp({ settings: { RATE_LIMIT_CHAT_PER_MINUTE: "0", RATE_LIMIT_FORKS_PER_MINUTE: "0", RATE_LIMIT_SHARES_PER_HOUR: "0" } });

/** What a link with the default options never holds: everything but the documents. */
const HIDDEN_BY_DEFAULT = Object.values(SECRETS).filter((secret) => secret !== SECRETS.document);

const ALL = { documents: true, attachments: true, toolDetails: true, reasoning: true };

/** The shared thread, imported as `cookie`'s: its id and the file's. */
async function importedThread(cookie: string) {
  const file = sharedThreadFile();
  const response = await importRoute.POST(request("/api/threads/import", { method: "POST", cookie, json: file }), undefined);
  expect(response.status).toBe(201);
  return { threadId: (await response.json()).thread.id as string, file };
}

function share(threadId: string, cookie: string, body: unknown = { expiresInDays: null }) {
  return makeShare.POST(request(`/api/threads/${threadId}/shares`, { method: "POST", cookie, json: body }), params(threadId));
}

async function shared(threadId: string, cookie: string, body: unknown = { expiresInDays: null }): Promise<SharedLink> {
  const response = await share(threadId, cookie, body);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as ShareResponse).share;
}

const shareParams = (shareId: string) => ({ params: Promise.resolve({ shareId }) });
const markdownOf = (shareId: string) => markdown.GET(request(`/s/${shareId}/markdown`), shareParams(shareId));
const revoke = (shareId: string, cookie: string) => oneShare.DELETE(request(`/api/shares/${shareId}`, { method: "DELETE", cookie }), shareParams(shareId));
const fileOf = (shareId: string, fileId: string) => sharedFile.GET(request(`/s/${shareId}/files/${fileId}`), { params: Promise.resolve({ shareId, fileId }) });

async function storedSnapshot(shareId: string): Promise<string | null> {
  const { rows } = await t.pool.query<{ snapshot: string | null }>("SELECT snapshot::text FROM shares WHERE id = $1", [keyOf(shareId)]);
  return rows[0].snapshot;
}

/** What a browser with no cookie gets from the proxy for the link's page. */
const openPage = (shareId: string, method = "GET") =>
  proxy(new NextRequest(`http://127.0.0.1:3000/s/${shareId}`, { method, headers: { host: "127.0.0.1:3000", "sec-fetch-site": "none", "sec-fetch-mode": "navigate" } }));

/** The database's key of a link: its id's random half. */
const keyOf = (shareId: string) => Buffer.from(shareId, "base64url").subarray(0, 16).toString("base64url");

/** One character of the id changed: another id with the same shape. */
const altered = (id: string, at: number) => `${id.slice(0, at)}${id[at] === "A" ? "B" : "A"}${id.slice(at + 1)}`;

describe("a share link's snapshot", () => {
  it("is the active branch as it was: a later message, another version or a rename does not change it", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    expect(link).toMatchObject({ threadId, title: "Multiplication", expiresAt: null, views: 0, expired: false, options: { documents: true, attachments: false, toolDetails: false, reasoning: false } });
    expect(link.id).toMatch(/^[\w-]{43}$/);
    expect(link.url).toBe(`http://localhost/s/${link.id}`);
    const before = await (await markdownOf(link.id)).text();
    expect(before).toContain(SHOWN.question);
    expect(before).toContain(SHOWN.answer);
    expect(before).toContain("You are welcome.");
    expect(before).not.toContain(SECRETS.otherBranch);

    const turn = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "One more thing" } }, t.me.cookie);
    expect(turn.response.status).toBe(200);
    const versions = await t.app.threads().versions(t.me.id, threadId);
    const replaced = versions.find((v) => v.versions.length > 1)!;
    await t.app.threads().selectVersion(t.me.id, threadId, replaced.versions.find((id) => id !== replaced.messageId)!);
    await threadRoute.PATCH(request(`/api/threads/${threadId}`, { method: "PATCH", cookie: t.me.cookie, json: { title: "Renamed" } }), params(threadId));

    const after = await (await markdownOf(link.id)).text();
    expect(after).toBe(before);
    expect(after).not.toContain("One more thing");
  });

  it("stores nothing its options hide, and its Markdown shows nothing of it", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    const stored = (await storedSnapshot(link.id))!;
    const text = await (await markdownOf(link.id)).text();
    for (const secret of HIDDEN_BY_DEFAULT) {
      expect(stored, secret).not.toContain(secret);
      expect(text, secret).not.toContain(secret);
    }
    expect(text).toContain("- Used `calculate`");
    expect(text).toContain("1 attached file not shared");
    // Documents are shown by default: the document's text is, not the call that wrote it.
    expect(text).toContain(SHOWN.documentTitle);
    expect(stored).not.toContain("You have used your"); // a budget's notice is the owner's business
  });

  it("shows what each option includes, and never the other branch, the feedback or an approval's reason", async () => {
    const { threadId, file } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie, { expiresInDays: 30, include: ALL });
    const stored = (await storedSnapshot(link.id))!;
    for (const secret of [SECRETS.toolInput, SECRETS.toolOutput, SECRETS.reasoning, SECRETS.document, SECRETS.attachment, SECRETS.subAgent]) {
      expect(stored, secret).toContain(secret);
    }
    for (const secret of [SECRETS.otherBranch, SECRETS.feedback, SECRETS.approvalReason]) expect(stored, secret).not.toContain(secret);
    const text = await (await markdownOf(link.id)).text();
    expect(text).toContain(SECRETS.toolInput);
    expect(new Date(link.expiresAt!).getTime() - Date.now()).toBeGreaterThan(29.9 * 86_400_000);

    // The attachment, by the id the snapshot names it by.
    const snapshot = JSON.parse(stored) as { files: { id: string }[] };
    const image = await fileOf(link.id, snapshot.files[0].id);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await image.arrayBuffer()).equals(Buffer.from(file.files![0].data, "base64"))).toBe(true);
    expect(image.headers.get("set-cookie")).toBeNull();
  });

  it("hides documents: neither the panel's text nor the document tool's input", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie, { expiresInDays: null, include: { ...ALL, documents: false } });
    const stored = (await storedSnapshot(link.id))!;
    expect(stored).not.toContain(SECRETS.document);
    expect(stored).toContain(SECRETS.toolInput); // other tools keep their details
  });

  it("serves no file it does not include, by any id", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const hidden = await shared(threadId, t.me.cookie);
    const { rows } = await t.pool.query<{ id: string }>("SELECT id FROM files WHERE owner = $1", [t.me.id]);
    expect(rows.length).toBe(1);
    expect((await fileOf(hidden.id, rows[0].id)).status).toBe(404);
    expect((await fileOf(hidden.id, "../../api/files")).status).toBe(404);
  });
});

describe("continuing a shared conversation", () => {
  it("gives the viewer a thread of their own holding exactly what the link shows, from source share", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    const viewer = await visitor();
    const response = await continueShare.POST(request(`/api/shares/${link.id}/continue`, { method: "POST", cookie: viewer.cookie }), shareParams(link.id));
    expect(response.status).toBe(201);
    const { thread } = (await response.json()) as { thread: { id: string } };
    const summary = await t.app.threads().get(viewer.id, thread.id);
    expect(summary).toMatchObject({ source: "share", sourceId: link.id, title: "Multiplication" });

    const exported = await exportRoute.GET(request(`/api/threads/${thread.id}/export?format=json`, { cookie: viewer.cookie }), params(thread.id));
    const fork = (await exported.json()) as ThreadExport;
    const forkText = JSON.stringify(fork);
    for (const secret of HIDDEN_BY_DEFAULT) expect(forkText, secret).not.toContain(secret);
    expect(fork.documents?.[0].versions[0].content).toContain(SECRETS.document); // documents are shown by default
    // The fork's branch is the link's, message for message, the file-only parts aside.
    const snapshot = JSON.parse((await storedSnapshot(link.id))!) as { messages: { role: string; parts: { type: string }[] }[] };
    expect(fork.messages.map((m) => [m.role, m.parts.map((p) => p.type)])).toEqual(snapshot.messages.map((m) => [m.role, m.parts.map((p) => p.type)]));
    expect(fork.files ?? []).toEqual([]);
    const { rows } = await t.pool.query("SELECT 1 FROM files WHERE owner = $1", [viewer.id]);
    expect(rows.length).toBe(0);

    // And it goes on from there.
    const turn = await chatTurn(chat, { threadId: thread.id, message: { id: randomUUID(), content: "And eight times eight?" } }, viewer.cookie);
    expect(turn.response.status).toBe(200);
    const sent = JSON.stringify(t.mock.requests.at(-1));
    expect(sent).toContain(SHOWN.answer);
    for (const secret of HIDDEN_BY_DEFAULT) expect(sent, secret).not.toContain(secret);
  });

  it("copies the files a link includes as the viewer's", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie, { expiresInDays: null, include: { ...ALL } });
    const viewer = await visitor();
    const response = await continueShare.POST(request(`/api/shares/${link.id}/continue`, { method: "POST", cookie: viewer.cookie }), shareParams(link.id));
    expect(response.status).toBe(201);
    const { rows } = await t.pool.query<{ name: string }>("SELECT name FROM files WHERE owner = $1", [viewer.id]);
    expect(rows.map((row) => row.name)).toEqual([SECRETS.attachment]);
  });

  it("is refused for a revoked link (410) and an unknown one (404)", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    expect((await revoke(link.id, t.me.cookie)).status).toBe(204);
    const viewer = await visitor();
    const gone = await continueShare.POST(request(`/api/shares/${link.id}/continue`, { method: "POST", cookie: viewer.cookie }), shareParams(link.id));
    expect(gone.status).toBe(410);
    const forged = altered(link.id, 40);
    const unknown = await continueShare.POST(request(`/api/shares/${forged}/continue`, { method: "POST", cookie: viewer.cookie }), shareParams(forged));
    expect(unknown.status).toBe(404);
  });
});

describe("the owner's links", () => {
  it("lists them, revokes one at once (its snapshot goes), and only the owner may", async () => {
    const owner = await visitor();
    const { threadId } = await importedThread(owner.cookie);
    const first = await shared(threadId, owner.cookie);
    const second = await shared(threadId, owner.cookie, { expiresInDays: 7, include: { reasoning: true } });
    const list = async (cookie: string) => ((await (await listShares.GET(request("/api/shares", { cookie }), undefined)).json()) as SharesResponse).shares;
    expect((await list(owner.cookie)).map((s) => s.id)).toEqual([second.id, first.id]);
    expect((await list(owner.cookie))[0].options).toEqual({ documents: true, attachments: false, toolDetails: false, reasoning: true });
    expect(await list(t.me.cookie)).toEqual([]);

    expect((await revoke(first.id, t.me.cookie)).status).toBe(404); // not theirs
    expect((await revoke(first.id, owner.cookie)).status).toBe(204);
    expect((await revoke(first.id, owner.cookie)).status).toBe(404); // already revoked
    expect(await storedSnapshot(first.id)).toBeNull();
    expect((await markdownOf(first.id)).status).toBe(410);
    expect((await list(owner.cookie)).map((s) => s.id)).toEqual([second.id]);
  });

  it("are revoked with their thread", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    const deleted = await threadRoute.DELETE(request(`/api/threads/${threadId}`, { method: "DELETE", cookie: t.me.cookie }), params(threadId));
    expect(deleted.status).toBe(204);
    expect((await markdownOf(link.id)).status).toBe(410);
    const { rows } = await t.pool.query("SELECT thread_id, snapshot, revoked_at FROM shares WHERE id = $1", [keyOf(link.id)]);
    expect(rows[0]).toMatchObject({ thread_id: null, snapshot: null });
    expect(rows[0].revoked_at).toBeInstanceOf(Date);
  });

  it("expire: 410 past their day, and the list says so", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie, { expiresInDays: 1 });
    expect((await markdownOf(link.id)).status).toBe(200);
    await t.pool.query("UPDATE shares SET expires_at = now() - interval '1 second' WHERE id = $1", [keyOf(link.id)]);
    const response = await markdownOf(link.id);
    expect(response.status).toBe(410);
    expect((await response.json()).error.code).toBe("gone:share");
    const listed = ((await (await listShares.GET(request("/api/shares", { cookie: t.me.cookie }), undefined)).json()) as SharesResponse).shares;
    expect(listed.find((s) => s.id === link.id)?.expired).toBe(true);
  });
});

describe("a guest's links", () => {
  it("follow the guest's threads to their account, and still show the files the account already held", async () => {
    const guest = await visitor();
    const account = await visitor();
    // The account holds the same image already: the guest's copy goes, the account's stands in.
    await importedThread(account.cookie);
    const { threadId } = await importedThread(guest.cookie);
    const link = await shared(threadId, guest.cookie, { expiresInDays: null, include: ALL });
    const snapshot = JSON.parse((await storedSnapshot(link.id))!) as { files: { id: string }[] };
    await t.app.threads().adopt(guest.id, account.id);
    const listed = ((await (await listShares.GET(request("/api/shares", { cookie: account.cookie }), undefined)).json()) as SharesResponse).shares;
    expect(listed.map((s) => s.id)).toEqual([link.id]);
    const image = await fileOf(link.id, snapshot.files[0].id);
    expect(image.status).toBe(200);
    expect((await revoke(link.id, account.cookie)).status).toBe(204);
  });
});

describe("a link's id", () => {
  it("is refused forged or altered, anywhere in it, as unknown", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    expect((await markdownOf(link.id)).status).toBe(200);
    for (const id of [altered(link.id, 0), altered(link.id, 21), altered(link.id, 30), link.id.slice(0, 42), `${link.id}A`, keyOf(link.id), "not-a-share-id"]) {
      expect((await markdownOf(id)).status, id).toBe(404);
      expect((await revoke(id, t.me.cookie)).status, id).toBe(404);
    }
  });
});

describe("bounds", () => {
  it("refuses a bad request with a clear error and stores nothing", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const cases: [unknown, string][] = [
      [{ expiresInDays: 2 }, "expiresInDays"],
      [{}, "expiresInDays"],
      [{ expiresInDays: null, include: { toolDetails: "yes" } }, "toolDetails"],
      [{ expiresInDays: null, include: { secrets: true } }, 'include: has no field "secrets"'],
      [{ expiresInDays: null, extra: 1 }, "extra"],
      [{ expiresInDays: null, include: { reasoning: true, pad: "x".repeat(5000) } }, ""],
    ];
    for (const [body, mentions] of cases) {
      const response = await share(threadId, t.me.cookie, body);
      expect([400, 413], JSON.stringify(body).slice(0, 80)).toContain(response.status);
      expect((await response.json()).error.message).toContain(mentions);
    }
    expect((await share(randomUUID(), t.me.cookie)).status).toBe(404);
    const stranger = await visitor();
    expect((await share(threadId, stranger.cookie)).status).toBe(404);
    const { rows } = await t.pool.query("SELECT 1 FROM shares WHERE owner = $1", [stranger.id]);
    expect(rows.length).toBe(0);
  });

  it("keeps one person to SHARES_PER_IDENTITY links, until they revoke one", async () => {
    await t.configure({ SHARES_PER_IDENTITY: "2", RATE_LIMIT_SHARES_PER_HOUR: "0" });
    const { threadId } = await importedThread(t.me.cookie);
    const first = await shared(threadId, t.me.cookie);
    await shared(threadId, t.me.cookie);
    const third = await share(threadId, t.me.cookie);
    expect(third.status).toBe(409);
    expect((await third.json()).error.message).toContain("Revoke some");
    await revoke(first.id, t.me.cookie);
    expect((await share(threadId, t.me.cookie)).status).toBe(201);
  });

  it("refuses a snapshot over SHARE_MAX_KB (413) with nothing stored", async () => {
    await t.configure({ SHARE_MAX_KB: "1", RATE_LIMIT_SHARES_PER_HOUR: "0" });
    const { threadId } = await importedThread(t.me.cookie);
    const response = await share(threadId, t.me.cookie);
    expect(response.status).toBe(413);
    expect((await response.json()).error.message).toMatch(/at most 1 KB/);
    const { rows } = await t.pool.query("SELECT 1 FROM shares WHERE owner = $1", [t.me.id]);
    expect(rows.length).toBe(0);
  });

  it("limits links made per identity, and shared pages opened per address", async () => {
    await t.configure({ RATE_LIMIT_SHARES_PER_HOUR: "1", RATE_LIMIT_SHARE_VIEWS_PER_MINUTE_PER_ADDRESS: "2" });
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    const again = await share(threadId, t.me.cookie);
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toMatch(/^\d+$/);
    const from = (address: string) => markdown.GET(request(`/s/${link.id}/markdown`, { headers: { "x-threadline-client-address": address } }), shareParams(link.id));
    expect((await from("198.51.100.7")).status).toBe(200);
    expect((await from("198.51.100.7")).status).toBe(200);
    expect((await from("198.51.100.7")).status).toBe(429);
    expect((await from("198.51.100.8")).status).toBe(200);
  });
});

describe("the public page, as the proxy opens it", () => {
  it("sets no cookie, asks for no sign-in, counts a view, and lets a cache keep it a minute", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    const response = await openPage(link.id);
    expect(response.headers.get("x-middleware-next")).toBe("1");
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60");
    expect(response.headers.get("content-security-policy")).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    expect(response.headers.get(`x-middleware-request-${SHARE_STATE_HEADER}`)).toBe("live");
    await openPage(link.id, "HEAD");
    const { rows } = await t.pool.query<{ views: string }>("SELECT views FROM shares WHERE id = $1", [keyOf(link.id)]);
    expect(Number(rows[0].views)).toBe(1); // the HEAD did not count

    await t.configure({ AUTH_MODE: "accounts", RATE_LIMIT_SHARES_PER_HOUR: "0" });
    const signedOut = await openPage(link.id);
    expect(signedOut.status).not.toBe(303);
    expect(signedOut.headers.get("set-cookie")).toBeNull();
  });

  it("answers 410 for a revoked link and 404 for an unknown or forged one, with the same page, by the same statements", async () => {
    const { threadId } = await importedThread(t.me.cookie);
    const link = await shared(threadId, t.me.cookie);
    await revoke(link.id, t.me.cookie);
    const statements: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (text && !text.includes("rate_limits")) statements.push(text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const run = async (id: string) => {
      statements.length = 0;
      const response = await openPage(id);
      const page = await response.text();
      return { status: response.status, heading: /<h1>([^<]*)<\/h1>/.exec(page)?.[1], length: page.length, statements: [...statements] };
    };
    try {
      const gone = await run(link.id);
      const unknown = await run(shareIdOf(randomBytes(16).toString("base64url"), SESSION_SECRET)); // signed, but no row has it
      const forged = await run(altered(link.id, 40));
      expect([gone.status, gone.heading]).toEqual([410, "This link is no longer available"]);
      expect([unknown.status, unknown.heading]).toEqual([404, "Link not found"]);
      expect([forged.status, forged.heading]).toEqual([404, "Link not found"]);
      // The same page but for its words: within a few dozen characters of each other.
      expect(Math.abs(gone.length - unknown.length)).toBeLessThan(100);
      expect(gone.statements.length).toBe(1);
      expect(unknown.statements).toEqual(gone.statements);
      expect(forged.statements).toEqual(gone.statements);
    } finally {
      pg.Client.prototype.query = query;
    }
  });
});

import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import * as threads from "@/app/api/threads/route";
import * as people from "@/app/api/admin/people/route";
import * as person from "@/app/api/admin/people/[id]/route";
import * as invites from "@/app/api/admin/invites/route";
import * as invite from "@/app/invite/[code]/route";
import { CLIENT_ADDRESS_HEADER, PEER_ADDRESS_HEADER } from "@/lib/http/client-address.mjs";
import { request, visitor } from "../support/api";
import * as auth from "@/app/api/auth/[...all]/route";
import { authPost, signIn, signUp, whoAmI } from "../support/accounts";
import { integrationApp } from "../support/integration";

// AUTH_MODE=accounts, through Better Auth's own endpoints and the admin's
// routes, on the real database: the first account is the admin, sign-up
// follows the policy, nothing of the API answers without a session, and an
// admin's "disable" ends a person's sessions at once.
const t = integrationApp({ model: "offline", settings: { AUTH_MODE: "accounts", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0" } });

const email = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.org`;

beforeEach(async () => {
  // Every test starts an install with nobody in it: the first sign-up is the admin.
  await t.pool.query("TRUNCATE auth_users, auth_first_admin, auth_verifications CASCADE");
});

const listThreads = (cookie: string) => threads.GET(request("/api/threads", { cookie }), undefined);
const change = (cookie: string, id: string, action: string) =>
  person.PATCH(request(`/api/admin/people/${id}`, { method: "PATCH", cookie, json: { action } }), { params: Promise.resolve({ id }) });

async function inviteCookie(adminCookie: string): Promise<string> {
  const made = await invites.POST(request("/api/admin/invites", { method: "POST", cookie: adminCookie }), undefined);
  expect(made.status).toBe(201);
  const { url } = (await made.json()).invite;
  const code = new URL(url).pathname.split("/").pop()!;
  const landed = await invite.GET(request(`/invite/${code}`), { params: Promise.resolve({ code }) });
  expect(landed.headers.get("location")).toBe("/sign-up?invite=1");
  return landed.headers.getSetCookie()[0].split(";")[0];
}

describe("accounts", () => {
  it("make the first person to sign up the admin, and everyone after a member", async () => {
    const admin = await signUp(email("first"));
    expect(admin.status).toBe(200);
    expect(admin.cookie).not.toBe("");
    // The session's token lives only in the httpOnly cookie, out of the page scripts' reach.
    expect(admin.body).not.toHaveProperty("token");
    expect((await signIn(admin.body.user!.email)).body).not.toHaveProperty("token");
    expect((await whoAmI(admin.cookie)).user).toMatchObject({ role: "admin" });
    expect(await whoAmI(admin.cookie)).toMatchObject({ guest: false, mode: "accounts" });

    const member = await signUp(email("second"), { cookie: await inviteCookie(admin.cookie) });
    expect(member.status).toBe(200);
    expect((await whoAmI(member.cookie)).user).toMatchObject({ role: "member" });
  });

  it("answer 401 unauthorized:session to an API request without a session", async () => {
    const nobody = await listThreads("");
    expect(nobody.status).toBe(401);
    expect((await nobody.json()).error.code).toBe("unauthorized:session");
    // A browser identity of an open install is nobody here.
    expect((await listThreads((await visitor()).cookie)).status).toBe(401);
    expect(await whoAmI("")).toEqual({ user: null, guest: false, mode: "accounts" });
  });

  it("under the invite policy, hold a sign-up without an invite until an admin approves it", async () => {
    const admin = await signUp(email("admin"));
    const waiting = email("waiting");
    const refused = await signUp(waiting);
    expect(refused.status).toBe(403);
    expect(refused.cookie).toBe("");
    expect(refused.body.message).toMatch(/waiting for an admin's approval/);
    expect((await signIn(waiting)).status).toBe(403);

    const listed = (await (await people.GET(request("/api/admin/people", { cookie: admin.cookie }), undefined)).json()).people;
    const pending = listed.find((p: { email: string }) => p.email === waiting);
    expect(pending).toMatchObject({ status: "pending", role: "member" });
    expect((await change(admin.cookie, pending.id, "approve")).status).toBe(200);

    const approved = await signIn(waiting);
    expect(approved.status).toBe(200);
    expect((await listThreads(approved.cookie)).status).toBe(200);
  });

  it("use an invite link once", async () => {
    const admin = await signUp(email("admin"));
    const cookie = await inviteCookie(admin.cookie);
    expect((await signUp(email("invited"), { cookie })).status).toBe(200);
    const again = await signUp(email("again"), { cookie });
    expect(again.status).toBe(403);
    expect(again.body.message).toMatch(/invite link has been used or has expired/);
  });

  it("follow AUTH_SIGNUP=allowlist and AUTH_SIGNUP=open", async () => {
    await signUp(email("admin"));
    await t.configure({ AUTH_MODE: "accounts", AUTH_SIGNUP: "allowlist", AUTH_ALLOWED_EMAILS: "friend@example.com, @team.example" });
    expect((await signUp("friend@example.com")).status).toBe(200);
    expect((await signUp(`${randomUUID()}@team.example`)).status).toBe(200);
    const stranger = await signUp(email("stranger"));
    expect(stranger.status).toBe(403);
    expect(stranger.body.message).toMatch(/may not sign up here/);

    await t.configure({ AUTH_MODE: "accounts", AUTH_SIGNUP: "open" });
    const anyone = await signUp(email("anyone"));
    expect(anyone.status).toBe(200);
    expect((await whoAmI(anyone.cookie)).user.role).toBe("member");
  });

  it("end every session of a person an admin disables, and refuse them at once", async () => {
    const admin = await signUp(email("admin"));
    const who = email("member");
    const member = await signUp(who, { cookie: await inviteCookie(admin.cookie) });
    const otherDevice = await signIn(who);
    expect((await listThreads(otherDevice.cookie)).status).toBe(200);

    const id = (await whoAmI(member.cookie)).user.id;
    const disabled = await change(admin.cookie, id, "disable");
    expect((await disabled.json()).person.status).toBe("disabled");
    for (const cookie of [member.cookie, otherDevice.cookie]) expect((await listThreads(cookie)).status).toBe(401);
    const back = await signIn(who);
    expect(back.status).toBe(403);
    expect(back.body.message).toMatch(/disabled/);
  });

  it("refuse every admin route to a member with 403, and to nobody with 401", async () => {
    const admin = await signUp(email("admin"));
    const member = await signUp(email("member"), { cookie: await inviteCookie(admin.cookie) });
    const adminId = (await whoAmI(admin.cookie)).user.id;
    const calls = [
      (cookie: string) => people.GET(request("/api/admin/people", { cookie }), undefined),
      (cookie: string) => invites.POST(request("/api/admin/invites", { method: "POST", cookie }), undefined),
      (cookie: string) => change(cookie, adminId, "disable"),
    ];
    for (const call of calls) {
      const forbidden = await call(member.cookie);
      expect(forbidden.status).toBe(403);
      expect((await forbidden.json()).error.code).toBe("forbidden:admin");
      expect((await call("")).status).toBe(401);
    }
  });

  it("keep the last admin an admin", async () => {
    const admin = await signUp(email("admin"));
    const id = (await whoAmI(admin.cookie)).user.id;
    const refused = await change(admin.cookie, id, "unmake-admin");
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toMatch(/last admin/);
  });

  it("sign out on the server: the session's cookie no longer works", async () => {
    const admin = await signUp(email("admin"));
    const out = await authPost("sign-out", {}, admin.cookie);
    expect(out.status).toBe(200);
    expect((await listThreads(admin.cookie)).status).toBe(401);
  });
});

describe("sign-in's limits", () => {
  it("lock an email after AUTH_LOCKOUT_FAILURES failed sign-ins, known or not, with the same answer", async () => {
    await t.configure({ AUTH_MODE: "accounts", AUTH_LOCKOUT_FAILURES: "3", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0" });
    const known = email("known");
    await signUp(known);
    const unknown = email("unknown");
    for (const who of [known, unknown]) {
      for (let i = 0; i < 3; i++) expect((await signIn(who, "wrong password!")).status).toBe(401);
    }
    const lockedKnown = await signIn(known); // the right password, too late
    const lockedUnknown = await signIn(unknown);
    expect(lockedKnown.status).toBe(429);
    expect(lockedKnown.cookie).toBe("");
    expect(lockedUnknown.status).toBe(429);
    expect(lockedKnown.body).toEqual(lockedUnknown.body);
    expect(lockedKnown.body.error?.code).toBe("rate_limited:locked");
  });

  it("answer a wrong password and an unknown email alike", async () => {
    const known = email("known");
    await signUp(known);
    const wrong = await signIn(known, "not the password");
    const nobody = await signIn(email("nobody"), "not the password");
    expect([wrong.status, nobody.status]).toEqual([401, 401]);
    expect(wrong.body).toEqual(nobody.body);
  });

  it("count sign-in requests per address, across emails", async () => {
    await t.configure({ AUTH_MODE: "accounts", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "2" });
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const from = (who: string) => authPost("sign-in/email", { email: who, password: "whatever123" }, undefined, { [CLIENT_ADDRESS_HEADER]: address });
    expect((await from(email("a"))).status).toBe(401);
    expect((await from(email("b"))).status).toBe(401);
    const third = await from(email("c"));
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("a browser's own data", () => {
  const threadOf = async (owner: string) => {
    const id = randomUUID();
    await t.pool.query("INSERT INTO threads (id, owner, title, message_count) VALUES ($1, $2, 'made before signing up', 2)", [id, owner]);
    return id;
  };
  const listed = async (cookie: string) => (await (await listThreads(cookie)).json()).threads.map((thread: { id: string }) => thread.id);

  it("goes with the first account made from that browser, when an open install is switched to accounts", async () => {
    const browser = await visitor();
    const threadId = await threadOf(browser.id);
    const admin = await signUp(email("owner"), { cookie: browser.cookie });
    expect(await listed(admin.cookie)).toEqual([threadId]);
  });

  it("stays a guest's own until the guest signs up, and then becomes the account's", async () => {
    await signUp(email("admin"));
    await t.configure({ AUTH_MODE: "accounts", AUTH_GUESTS: "1", AUTH_SIGNUP: "open" });
    const guest = await visitor();
    const threadId = await threadOf(guest.id);
    expect(await listed(guest.cookie)).toEqual([threadId]);
    expect((await whoAmI(guest.cookie)).guest).toBe(true);

    const account = await signUp(email("guest"), { cookie: `${guest.cookie}` });
    expect(account.status).toBe(200);
    expect(await listed(account.cookie)).toEqual([threadId]);
    expect(await listed(guest.cookie)).toEqual([]);
  });

  it("is nobody's to claim without guests: a later sign-up from a browser with an old identity takes nothing", async () => {
    await signUp(email("admin"));
    await t.configure({ AUTH_MODE: "accounts", AUTH_SIGNUP: "open" });
    const browser = await visitor();
    const threadId = await threadOf(browser.id);
    const later = await signUp(email("later"), { cookie: browser.cookie });
    expect(await listed(later.cookie)).toEqual([]);
    const { rows } = await t.pool.query("SELECT owner FROM threads WHERE id = $1", [threadId]);
    expect(rows[0].owner).toBe(browser.id);
  });
});

describe("AUTH_MODE=proxy", () => {
  const TRUSTED = "10.1.2.3";
  const from = (peer: string | undefined, named?: string) => {
    const headers: Record<string, string> = {};
    if (peer) headers[PEER_ADDRESS_HEADER] = peer;
    if (named) headers["x-forwarded-email"] = named;
    return request("/api/threads", { headers });
  };

  beforeEach(async () => {
    await t.configure({ AUTH_MODE: "proxy", AUTH_PROXY_TRUSTED: `${TRUSTED}, fd00::/8` });
  });

  it("takes the person from the proxy's header, the first named the admin", async () => {
    const first = email("first");
    const response = await threads.GET(from(TRUSTED, first), undefined);
    expect(response.status).toBe(200);
    const meFirst = await (await import("@/app/api/me/route")).GET(from(TRUSTED, first), undefined);
    expect(await meFirst.json()).toMatchObject({ user: { email: first, role: "admin" }, guest: false, mode: "proxy" });
    // The same person again is the same owner; an IPv4-mapped peer is its IPv4 address; the next person is a member.
    const again = await (await import("@/app/api/me/route")).GET(from(`::ffff:${TRUSTED}`, first.toUpperCase()), undefined);
    expect((await again.json()).user.email).toBe(first);
    const second = await (await import("@/app/api/me/route")).GET(from("fd00::7", email("second")), undefined);
    expect((await second.json()).user.role).toBe("member");
  });

  it("believes the header from no other address, and names nobody without it", async () => {
    const forged = await threads.GET(from("203.0.113.5", email("mallory")), undefined);
    expect(forged.status).toBe(403);
    expect((await forged.json()).error.code).toBe("forbidden:proxy");
    // Started without the start script's stamp, a request has no peer: not the proxy either.
    expect((await threads.GET(from(undefined, email("mallory")), undefined)).status).toBe(403);
    const unnamed = await threads.GET(from(TRUSTED), undefined);
    expect(unnamed.status).toBe(401);
    expect((await unnamed.json()).error.code).toBe("unauthorized:proxy");
    expect((await t.pool.query("SELECT 1 FROM auth_users WHERE email LIKE 'mallory-%'")).rowCount).toBe(0);
  });

  it("has no sign-up or sign-in of its own", async () => {
    expect((await signUp(email("someone"))).status).toBe(404);
  });
});

describe("what a sign-up may send", () => {
  it("is bounded: a name of 101 characters, an empty name, a large body and a short password are refused, and nothing is stored", async () => {
    const who = email("bounded");
    const long = await authPost("sign-up/email", { email: who, password: "correct horse battery", name: "n".repeat(101) });
    expect(long.status).toBe(400);
    expect((await long.json()).error.message).toMatch(/at most 100 characters/);
    expect((await authPost("sign-up/email", { email: who, password: "correct horse battery", name: "  " })).status).toBe(400);
    const huge = await authPost("sign-up/email", { email: who, password: "correct horse battery", name: "x", padding: "p".repeat(20_000) });
    expect(huge.status).toBe(413);
    const short = await authPost("sign-up/email", { email: who, password: "short", name: "x" });
    expect(short.status).toBe(400);
    expect((await short.json()).message).toMatch(/short/i);
    expect((await t.pool.query("SELECT 1 FROM auth_users WHERE email = $1", [who])).rowCount).toBe(0);
  });
});

describe("another site", () => {
  it("cannot sign anyone up or in: the origin must be the one the browser addressed", async () => {
    const who = email("csrf");
    const crossSite = await authPost("sign-up/email", { email: who, password: "correct horse battery", name: "x" }, undefined, { origin: "http://evil.example" });
    expect(crossSite.status).toBe(403);
    expect((await t.pool.query("SELECT 1 FROM auth_users WHERE email = $1", [who])).rowCount).toBe(0);
    // Behind a proxy the app may see another host in its URL; the browser's own Host header is what its Origin matches.
    const proxied = await auth.POST(
      new Request("http://127.0.0.1:3000/api/auth/sign-up/email", {
        method: "POST",
        headers: { "content-type": "application/json", host: "chat.example.org", origin: "http://chat.example.org" },
        body: JSON.stringify({ email: who, password: "correct horse battery", name: "x" }),
      }),
      undefined,
    );
    expect(proxied.status).toBe(200);
    expect((await signIn(who, "correct horse battery", undefined)).status).toBe(200);
    const crossSignIn = await authPost("sign-in/email", { email: who, password: "correct horse battery" }, undefined, { origin: "http://evil.example" });
    expect(crossSignIn.status).toBe(403);
  });
});

describe("device links", () => {
  it("carry a guest's browser identity, never an account: a signed-in person signs in on the other device instead", async () => {
    const links = await import("@/app/api/device-links/route");
    const admin = await signUp(email("admin"));
    const refused = await links.POST(request("/api/device-links", { method: "POST", cookie: admin.cookie, json: {} }), undefined);
    expect(refused.status).toBe(404);
    expect((await refused.json()).error.code).toBe("not_found:device_links");
    expect((await t.pool.query("SELECT 1 FROM device_links WHERE owner = $1", [(await whoAmI(admin.cookie)).user.id])).rowCount).toBe(0);

    await t.configure({ AUTH_MODE: "accounts", AUTH_GUESTS: "1" });
    const guest = await visitor();
    expect((await links.POST(request("/api/device-links", { method: "POST", cookie: guest.cookie, json: {} }), undefined)).status).toBe(201);
  });
});

describe("session cookies", () => {
  it("are httpOnly and SameSite=Lax, Secure (and __Secure- named) over TLS, and new at every sign-in", async () => {
    const who = email("cookies");
    const overTls = await authPost("sign-up/email", { email: who, password: "correct horse battery", name: "x" }, undefined, { "x-forwarded-proto": "https" });
    expect(overTls.status).toBe(200);
    const set = overTls.headers.getSetCookie().find((c) => c.startsWith("__Secure-threadline.session_token="))!;
    expect(set).toBeDefined();
    expect(set).toMatch(/; HttpOnly/i);
    expect(set).toMatch(/; Secure/i);
    expect(set).toMatch(/; SameSite=Lax/i);

    const plain = await signIn(who);
    const again = await signIn(who);
    expect(plain.cookie).not.toBe("");
    expect(again.cookie).not.toBe(plain.cookie);
    // A cookie the browser held before signing in is not taken over: the session is a new one.
    const fixed = await signIn(who, "correct horse battery", plain.cookie);
    expect(fixed.cookie).not.toBe(plain.cookie);
    // A made-up token is nobody.
    expect((await listThreads("threadline.session_token=made-up.value")).status).toBe(401);
  });
});

describe("invites", () => {
  it("expire: an old link lands on the page that says so, and its cookie makes no member", async () => {
    const admin = await signUp(email("admin"));
    const adminId = (await whoAmI(admin.cookie)).user.id;
    const code = "e".repeat(43);
    const digest = (await import("node:crypto")).createHash("sha256").update(code).digest("base64url");
    await t.pool.query("INSERT INTO auth_invites (code_hash, created_by, created_at, expires_at) VALUES ($1, $2, now() - interval '8 days', now() - interval '1 day')", [digest, adminId]);
    const landed = await invite.GET(request(`/invite/${code}`), { params: Promise.resolve({ code }) });
    expect(landed.headers.get("location")).toBe("/sign-up?invite=expired");
    expect(landed.headers.getSetCookie()).toEqual([]);
    const late = await signUp(email("late"), { cookie: `threadline_invite=${code}` });
    expect(late.status).toBe(403);
    expect(late.body.message).toMatch(/used or has expired/);
  });
});

describe("the rest of Better Auth's endpoints", () => {
  it("take small bodies only, and a name stays a name", async () => {
    const admin = await signUp(email("admin"));
    const huge = await authPost("update-user", { name: "x", padding: "p".repeat(20_000) }, admin.cookie);
    expect(huge.status).toBe(413);
    const long = await authPost("update-user", { name: "n".repeat(101) }, admin.cookie);
    expect(long.status).toBe(400);
    const renamed = await authPost("update-user", { name: "Ana Renamed" }, admin.cookie);
    expect(renamed.status).toBe(200);
    expect((await whoAmI(admin.cookie)).user.name).toBe("Ana Renamed");
    // What a person may not set of their own: their role and status are the admins'.
    await authPost("update-user", { role: "admin", status: "active" }, admin.cookie);
    const member = await signUp(email("member"), { cookie: await inviteCookie(admin.cookie) });
    const promoted = await authPost("update-user", { role: "admin" }, member.cookie);
    expect(promoted.status).toBe(400);
    expect((await whoAmI(member.cookie)).user.role).toBe("member");
  });
});

describe("on one database connection", () => {
  it("signs up the first admin with the browser's data, an invited member and a guest: nothing waits for a connection it holds", async () => {
    // The embedded Postgres is one session, so its pool is one connection; the sign-up's hooks query that pool.
    await t.configure({ AUTH_MODE: "accounts", AUTH_GUESTS: "1", DATABASE_POOL_SIZE: "1", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0" });
    const browser = await visitor();
    await t.pool.query("INSERT INTO threads (id, owner, title, message_count) VALUES ($1, $2, 'before', 2)", [randomUUID(), browser.id]);
    const admin = await signUp(email("admin"), { cookie: browser.cookie });
    expect(admin.status).toBe(200);
    expect((await (await listThreads(admin.cookie)).json()).threads).toHaveLength(1);
    const member = await signUp(email("member"), { cookie: `${await inviteCookie(admin.cookie)}; ${(await visitor()).cookie}` });
    expect(member.status).toBe(200);
    expect((await signIn(admin.body.user!.email)).status).toBe(200);
  }, 30_000);
});

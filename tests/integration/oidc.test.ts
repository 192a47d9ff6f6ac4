import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as auth from "@/app/api/auth/[...all]/route";
import * as threads from "@/app/api/threads/route";
import * as people from "@/app/api/admin/people/route";
import * as person from "@/app/api/admin/people/[id]/route";
import * as invites from "@/app/api/admin/invites/route";
import * as invite from "@/app/invite/[code]/route";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address.mjs";
import { request } from "../support/api";
import { authPost, sessionCookie, signIn, signUp, whoAmI } from "../support/accounts";
import { freePort } from "../support/fresh-copy";
import { integrationApp } from "../support/integration";
import { signInAtProvider, startTestOidc, type TestOidc } from "../support/oidc-provider";

// Sign-in through OpenID Connect providers (AUTH_MODE=accounts), against a
// real provider on loopback (tests/support/oidc-provider.ts): the app's own
// route handlers start the authorization code flow, the provider's pages are
// filled in over HTTP, and its redirect comes back to the app's callback, as
// a browser's would. Three providers: one that tells the truth; one whose
// discovery document names another issuer than it is configured as; one
// whose discovery names the configured issuer while its tokens name another.

const APP_URL = "http://localhost";
const callbackFor = (id: string) => `${APP_URL}/api/auth/callback/${id}`;
const unique = (who: string) => `${who}-${randomUUID().slice(0, 8)}`;

let truthful: TestOidc;
let otherIssuer: TestOidc;
let forgedIssuer: TestOidc;
let claimsInToken: TestOidc;
let switchedIssuer: TestOidc;

beforeAll(async () => {
  truthful = await startTestOidc({ redirectUris: [callbackFor("oidc")], people: { unverified: { email: "unverified@team.example", emailVerified: false } } });
  otherIssuer = await startTestOidc({ redirectUris: [callbackFor("other")], issuerPath: "/other" });
  // Its discovery names the address it is configured at, while its tokens name …/real.
  forgedIssuer = await startTestOidc({ redirectUris: [callbackFor("forged")], issuerPath: "/real", advertiseAddress: true });
  // Its first discovery answer names the address it is configured at, the next ones the issuer its tokens name.
  switchedIssuer = await startTestOidc({ redirectUris: [callbackFor("switched")], issuerPath: "/real", advertiseAddress: "first" });
  claimsInToken = await startTestOidc({ redirectUris: [callbackFor("direct")], claimsInIdToken: true, people: { lu: { email: "lu@example.org", name: "Lu Xun" } } });
});
afterAll(async () => {
  await Promise.all([truthful?.close(), otherIssuer?.close(), forgedIssuer?.close(), claimsInToken?.close(), switchedIssuer?.close()]);
});

const oidcSettings = () => ({
  AUTH_MODE: "accounts",
  RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0",
  APP_URL,
  AUTH_OIDC_ISSUER: truthful.url,
  AUTH_OIDC_CLIENT_ID: truthful.clientId,
  AUTH_OIDC_CLIENT_SECRET: truthful.clientSecret,
  AUTH_OIDC_LABEL: "Test IdP",
  AUTH_OIDC_PROVIDERS: JSON.stringify([
    { id: "other", label: "Other", issuer: otherIssuer.url, clientId: otherIssuer.clientId, clientSecret: otherIssuer.clientSecret },
    { id: "forged", label: "Forged", issuer: forgedIssuer.url, clientId: forgedIssuer.clientId, clientSecret: forgedIssuer.clientSecret },
    { id: "switched", label: "Switched", issuer: switchedIssuer.url, clientId: switchedIssuer.clientId, clientSecret: switchedIssuer.clientSecret },
    { id: "direct", label: "Direct", issuer: claimsInToken.url, clientId: claimsInToken.clientId, clientSecret: claimsInToken.clientSecret },
  ]),
});
const t = integrationApp({ model: "offline", settings: oidcSettings });

beforeEach(async () => {
  await t.pool.query("TRUNCATE auth_users, auth_first_admin, auth_verifications CASCADE");
});

/** The cookies a response sets, added to `cookie` (a browser's Cookie header). */
function withCookies(cookie: string, response: Response): string {
  const jar = new Map(cookie.split("; ").filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf("=")), pair]));
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(";")[0];
    jar.set(pair.slice(0, pair.indexOf("=")), pair);
  }
  return [...jar.values()].join("; ");
}

/** POST /api/auth/sign-in/social, as the sign-in page's button does. */
async function start(provider: string, cookie = "") {
  const response = await authPost("sign-in/social", { provider, callbackURL: "/" }, cookie);
  const body = await response.json();
  return { status: response.status, body, url: body.url as string | undefined, cookie: withCookies(cookie, response) };
}

/** The browser's return to the app's callback. */
const callback = (at: URL, cookie: string) => auth.GET(request(`${at.pathname}${at.search}`, { cookie }), undefined);

interface Outcome {
  /** Where the app sent the browser after its callback. */
  location: string;
  /** The session cookie it set ("" for none). */
  session: string;
}

/** A whole sign-in through `provider` as `login`, from a browser that carries `cookie` (an invite, say). */
async function oidcSignIn(login: string, { provider = "oidc", cookie = "", tamper }: { provider?: string; cookie?: string; tamper?: (back: URL) => void } = {}): Promise<Outcome> {
  const started = await start(provider, cookie);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const back = await signInAtProvider(started.url!, login);
  expect(back.href.startsWith(callbackFor(provider))).toBe(true);
  tamper?.(back);
  const response = await callback(back, started.cookie);
  expect(response.status).toBe(302);
  return { location: response.headers.get("location")!, session: sessionCookie(response) };
}

const listThreads = (cookie: string) => threads.GET(request("/api/threads", { cookie }), undefined);
const listPeople = async (cookie: string) => (await (await people.GET(request("/api/admin/people", { cookie }), undefined)).json()).people as { id: string; email: string; status: string; role: string }[];
const change = (cookie: string, id: string, action: string) =>
  person.PATCH(request(`/api/admin/people/${id}`, { method: "PATCH", cookie, json: { action } }), { params: Promise.resolve({ id }) });

async function firstAdmin(): Promise<{ login: string; session: string }> {
  const login = `${unique("admin")}@example.org`;
  const { session } = await oidcSignIn(login);
  expect(session).not.toBe("");
  return { login, session };
}

describe("OIDC sign-in", () => {
  it("sends the browser to the provider with PKCE (S256), a state, a nonce and the openid, email and profile scopes", async () => {
    const started = await start("oidc");
    const url = new URL(started.url!);
    expect(url.origin).toBe(truthful.url);
    expect(url.searchParams.get("client_id")).toBe(truthful.clientId);
    expect(url.searchParams.get("redirect_uri")).toBe(callbackFor("oidc"));
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(url.searchParams.get("nonce")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(url.searchParams.get("scope")!.split(" ").sort()).toEqual(["email", "openid", "profile"]);
    // The state is also a cookie of this browser's: a callback from another browser does not match it.
    expect(started.cookie).toMatch(/threadline\.state=/);
  });

  it("makes the first person the admin, whose session works on the API", async () => {
    const login = `${unique("ana")}@example.org`;
    const outcome = await oidcSignIn(login);
    expect(outcome.location).toBe("/");
    expect(outcome.session).not.toBe("");
    expect(await whoAmI(outcome.session)).toMatchObject({ user: { email: login, name: login, role: "admin" }, guest: false, mode: "accounts" });
    expect((await listThreads(outcome.session)).status).toBe(200);
    // The account is the provider's subject, under the provider's id.
    const { rows } = await t.pool.query("SELECT provider_id, account_id FROM auth_accounts");
    expect(rows).toEqual([{ provider_id: "oidc", account_id: login }]);

    // Signing in again finds the same person.
    const again = await oidcSignIn(login);
    expect((await whoAmI(again.session)).user).toMatchObject({ email: login, role: "admin" });
    expect((await t.pool.query("SELECT count(*)::int AS n FROM auth_users")).rows[0].n).toBe(1);
  });

  it("reads the person from the ID token itself when the provider puts its claims there", async () => {
    const outcome = await oidcSignIn("lu", { provider: "direct" });
    expect(outcome.location).toBe("/");
    expect((await whoAmI(outcome.session)).user).toMatchObject({ email: "lu@example.org", name: "Lu Xun", role: "admin" });
  });

  it("joins an account made through one provider that verified its email when another verifies the same email", async () => {
    const first = await oidcSignIn("lu@example.org");
    const id = (await whoAmI(first.session)).user.id;
    const other = await oidcSignIn("lu", { provider: "direct" });
    expect((await whoAmI(other.session)).user).toMatchObject({ id, email: "lu@example.org" });
    const { rows } = await t.pool.query("SELECT provider_id FROM auth_accounts WHERE user_id = $1 ORDER BY provider_id", [id]);
    expect(rows).toEqual([{ provider_id: "direct" }, { provider_id: "oidc" }]);
  });

  it("under the invite policy, keeps a second person without an invite pending, with no session, until an admin approves", async () => {
    const admin = await firstAdmin();
    const login = `${unique("bo")}@example.org`;
    const waiting = await oidcSignIn(login);
    expect(waiting.session).toBe("");
    expect(waiting.location).toBe("/sign-in?error=PENDING_APPROVAL&error_description=Your+account+is+waiting+for+an+admin%27s+approval.");
    const pending = (await listPeople(admin.session)).find((p) => p.email === login)!;
    expect(pending).toMatchObject({ status: "pending", role: "member" });
    expect((await t.pool.query("SELECT count(*)::int AS n FROM auth_sessions WHERE user_id = $1", [pending.id])).rows[0].n).toBe(0);

    // Again before approval: still no session.
    expect((await oidcSignIn(login)).session).toBe("");
    expect((await change(admin.session, pending.id, "approve")).status).toBe(200);
    const approved = await oidcSignIn(login);
    expect(approved.location).toBe("/");
    expect((await whoAmI(approved.session)).user).toMatchObject({ email: login, role: "member" });
  });

  it("lets a person with an invite in as a member at once", async () => {
    const admin = await firstAdmin();
    const made = await invites.POST(request("/api/admin/invites", { method: "POST", cookie: admin.session }), undefined);
    const code = new URL((await made.json()).invite.url).pathname.split("/").pop()!;
    const landed = await invite.GET(request(`/invite/${code}`), { params: Promise.resolve({ code }) });
    const inviteCookie = landed.headers.getSetCookie()[0].split(";")[0];

    const login = `${unique("cy")}@example.org`;
    const invited = await oidcSignIn(login, { cookie: inviteCookie });
    expect(invited.location).toBe("/");
    expect((await whoAmI(invited.session)).user).toMatchObject({ email: login, role: "member" });
    // The invite is used up: a second person bringing it is refused.
    const late = await oidcSignIn(`${unique("late")}@example.org`, { cookie: inviteCookie });
    expect(late.session).toBe("");
    expect(late.location).toMatch(/^\/sign-in\?error=SIGN_UP_REFUSED&/);
  });

  it("under the allowlist policy, admits a listed email only when the provider verified it", async () => {
    await firstAdmin();
    await t.configure({ ...oidcSettings(), AUTH_SIGNUP: "allowlist", AUTH_ALLOWED_EMAILS: "@team.example" });
    const unverified = await oidcSignIn("unverified");
    expect(unverified.session).toBe("");
    expect(unverified.location).toMatch(/^\/sign-in\?error=SIGN_UP_REFUSED&/);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM auth_users WHERE email = 'unverified@team.example'")).rows[0].n).toBe(0);

    const listed = await oidcSignIn(`${unique("dee")}@team.example`);
    expect((await whoAmI(listed.session)).user).toMatchObject({ role: "member" });
    const unlisted = await oidcSignIn(`${unique("eve")}@elsewhere.example`);
    expect(unlisted.location).toMatch(/^\/sign-in\?error=SIGN_UP_REFUSED&/);
  });

  it("refuses a disabled person", async () => {
    const admin = await firstAdmin();
    await t.configure({ ...oidcSettings(), AUTH_SIGNUP: "open" });
    const login = `${unique("fay")}@example.org`;
    const member = await oidcSignIn(login);
    const id = (await whoAmI(member.session)).user.id;
    expect((await change(admin.session, id, "disable")).status).toBe(200);
    const back = await oidcSignIn(login);
    expect(back.session).toBe("");
    expect(back.location).toMatch(/^\/sign-in\?error=ACCOUNT_DISABLED&/);
    expect(await whoAmI(member.session)).toMatchObject({ user: null });
  });

  it("does not hand a password account to an OIDC sign-in with its email", async () => {
    const email = `${unique("gus")}@example.org`;
    const owner = await signUp(email);
    expect(owner.status).toBe(200);
    const taker = await oidcSignIn(email);
    expect(taker.session).toBe("");
    expect(taker.location).toMatch(/^\/sign-in\?error=account_not_linked/);
    expect((await t.pool.query("SELECT provider_id FROM auth_accounts")).rows).toEqual([{ provider_id: "credential" }]);
    expect((await signIn(email)).status).toBe(200);
  });

  it("refuses a callback whose state was tampered with, one from another browser, and one replayed", async () => {
    await firstAdmin();
    const tampered = await oidcSignIn(`${unique("hal")}@example.org`, { tamper: (back) => back.searchParams.set("state", "A".repeat(32)) });
    expect(tampered.session).toBe("");
    expect(tampered.location).toBe("/sign-in?error=state_mismatch");

    const started = await start("oidc");
    const back = await signInAtProvider(started.url!, `${unique("ivy")}@example.org`);
    // Another browser, without the first one's state cookie.
    const elsewhere = await callback(back, "");
    expect(sessionCookie(elsewhere)).toBe("");
    expect(elsewhere.headers.get("location")).toBe("/sign-in?error=state_mismatch");
    // The state is used once: the same callback again, from the right browser, is refused after its first use.
    const once = await callback(back, started.cookie);
    expect(once.headers.get("location")).toMatch(/^\/sign-in\?error=PENDING_APPROVAL/);
    const replayed = await callback(back, started.cookie);
    expect(sessionCookie(replayed)).toBe("");
    expect(replayed.headers.get("location")).toBe("/sign-in?error=state_mismatch");
  });

  it("leaves out a provider whose discovery document names another issuer than the configured one", async () => {
    const refused = await start("other");
    expect(refused.status).toBe(503);
    expect(refused.body.error).toEqual({
      code: "unavailable:oidc",
      message: "Sign-in with Other is unavailable: the provider did not answer as this server expects. Try again in a minute, or ask an admin.",
    });
    expect(refused.cookie).not.toMatch(/threadline\.state=/);
  });

  it("refuses a provider whose ID token names another issuer than its discovery", async () => {
    // The authorization response's iss (RFC 9207) already names the real one …
    const byResponse = await oidcSignIn(`${unique("jo")}@example.org`, { provider: "forged" });
    expect(byResponse.session).toBe("");
    expect(byResponse.location).toBe("/sign-in?error=issuer_mismatch");
    // … and without it, the ID token's own iss does.
    const byToken = await oidcSignIn(`${unique("kim")}@example.org`, { provider: "forged", tamper: (back) => back.searchParams.delete("iss") });
    expect(byToken.session).toBe("");
    expect(byToken.location).toBe("/sign-in?error=unable_to_get_user_info");
    expect((await t.pool.query("SELECT count(*)::int AS n FROM auth_users")).rows[0].n).toBe(0);
  });

  it("refuses an ID token of another issuer than the configured one, even when the discovery Better Auth read named it", async () => {
    // Threadline read the configured issuer in the discovery document; Better Auth, reading it next, found the tokens' own.
    const switched = await oidcSignIn(`${unique("ned")}@example.org`, { provider: "switched" });
    expect(switched.session).toBe("");
    expect(switched.location).toBe("/sign-in?error=unable_to_get_user_info");
    expect((await t.pool.query("SELECT count(*)::int AS n FROM auth_users")).rows[0].n).toBe(0);
  });

  it("takes the provider and where to go after, and nothing else: no ID token handed in, no unknown provider", async () => {
    const withToken = await authPost("sign-in/social", { provider: "oidc", callbackURL: "/", idToken: { token: "a.b.c" } });
    expect(withToken.status).toBe(400);
    expect((await withToken.json()).error.code).toMatch(/^bad_request/);
    const unknown = await authPost("sign-in/social", { provider: "github", callbackURL: "/" });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toEqual({ code: "not_found:oidc", message: "There is no such sign-in provider here." });
    const long = await authPost("sign-in/social", { provider: "oidc", callbackURL: `/${"x".repeat(2000)}` });
    expect(long.status).toBe(400);
    for (const callbackURL of ["https://evil.example/", "//evil.example/", "/\\evil.example/"]) {
      const elsewhere = await authPost("sign-in/social", { provider: "oidc", callbackURL });
      expect(elsewhere.status).toBe(400);
      expect((await elsewhere.json()).error.message).toMatch(/must be a path of this site/);
    }
  });

  it("counts the starts of sign-ins per address, with the other sign-in requests", async () => {
    await t.configure({ ...oidcSettings(), RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "2" });
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const from = () => authPost("sign-in/social", { provider: "oidc", callbackURL: "/" }, undefined, { [CLIENT_ADDRESS_HEADER]: address });
    expect((await from()).status).toBe(200);
    expect((await authPost("sign-in/email", { email: "nobody@example.org", password: "whatever123" }, undefined, { [CLIENT_ADDRESS_HEADER]: address })).status).toBe(401);
    const third = await from();
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("asks a provider that was away again after a minute, and offers it once it answers", async () => {
    const port = await freePort();
    const late = { id: "late", label: "Late", issuer: `http://127.0.0.1:${port}`, clientId: "threadline", clientSecret: "late-secret" };
    await t.configure({ ...oidcSettings(), AUTH_OIDC_PROVIDERS: JSON.stringify([late]) });
    expect((await start("late")).status).toBe(503);
    const provider = await startTestOidc({ redirectUris: [callbackFor("late")], port, clientSecret: late.clientSecret });
    try {
      // Within the minute it is not asked again.
      expect((await start("late")).status).toBe(503);
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61_000 });
      const started = await start("late");
      vi.useRealTimers();
      expect(started.status).toBe(200);
      const back = await signInAtProvider(started.url!, `${unique("mo")}@example.org`);
      const response = await callback(back, started.cookie);
      expect(response.headers.get("location")).toBe("/");
      expect(sessionCookie(response)).not.toBe("");
    } finally {
      vi.useRealTimers();
      await provider.close();
    }
  });
});

import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as auth from "@/app/api/auth/[...all]/route";
import * as people from "@/app/api/admin/people/route";
import * as person from "@/app/api/admin/people/[id]/route";
import * as resetLink from "@/app/api/admin/people/[id]/reset-link/route";
import * as invites from "@/app/api/admin/invites/route";
import * as invite from "@/app/invite/[code]/route";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address.mjs";
import { params, request } from "../support/api";
import { authPost, sessionCookie, signIn, signUp, whoAmI } from "../support/accounts";
import { integrationApp } from "../support/integration";
import { closedPort, linkIn, startSilentServer, startSmtpCapture, type SmtpCapture } from "../support/smtp-capture";

// The mails of sign-in, through a real SMTP server on loopback: a password
// reset by mail, an admin's one-time reset link, a sign-in link; what each
// answers for a known and an unknown email (the same), how often one email
// may be mailed, and what a mail server that is down or stuck costs a request
// (nothing: the answer does not wait for the mail).

let smtp: SmtpCapture;
beforeAll(async () => {
  smtp = await startSmtpCapture();
});
afterAll(async () => {
  await smtp.close();
});

const t = integrationApp({
  model: "offline",
  settings: () => ({ AUTH_MODE: "accounts", APP_URL: "http://localhost", SMTP_URL: smtp.url, RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0" }),
});

const email = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.org`;
const OLD = "correct horse battery";
const NEW = "a brand new passphrase";

/** Every mail begun so far, sent or given up. */
const mailsSettled = () => t.app.accounts().mail!.settled();
const mailsTo = (to: string) => smtp.mails.filter((mail) => mail.to.includes(to));

beforeEach(async () => {
  await t.pool.query("TRUNCATE auth_users, auth_first_admin, auth_verifications CASCADE");
  // The per-email mail counts (and the lockouts) start afresh in each test.
  await t.pool.query("DELETE FROM rate_limits WHERE key LIKE 'mailsPerEmail:%' OR key LIKE 'signInFailures:%'");
  smtp.mails.length = 0;
});
afterEach(async () => {
  // A mail still going out belongs to the test that began it.
  await t.app.accounts().mail?.settled();
  vi.restoreAllMocks();
});

const requestReset = (who: string, headers: Record<string, string> = {}) => authPost("request-password-reset", { email: who }, undefined, headers);
const requestSignInLink = (who: string) => authPost("sign-in/magic-link", { email: who, callbackURL: "/c/somewhere" });
const resetPassword = (token: string, newPassword = NEW) => authPost("reset-password", { token, newPassword });
/** GET a link from a mail, as the browser that opens it. */
const open = (link: string, cookie?: string) => auth.GET(new Request(link, { headers: cookie ? { cookie } : {} }), undefined);
const tokenOf = (location: string) => new URL(location, "http://localhost").searchParams.get("token")!;

async function inviteCookie(adminCookie: string): Promise<string> {
  const made = await invites.POST(request("/api/admin/invites", { method: "POST", cookie: adminCookie }), undefined);
  const code = new URL((await made.json()).invite.url).pathname.split("/").pop()!;
  const landed = await invite.GET(request(`/invite/${code}`), { params: Promise.resolve({ code }) });
  return landed.headers.getSetCookie()[0].split(";")[0];
}

/** An admin (the install's first account) and a member they invited. */
async function adminAndMember() {
  const admin = await signUp(email("admin"), { password: OLD });
  const memberEmail = email("member");
  const member = await signUp(memberEmail, { password: OLD, cookie: await inviteCookie(admin.cookie) });
  return { admin, member, memberEmail, memberId: member.body.user!.id };
}

const makeResetLink = (cookie: string, id: string) =>
  resetLink.POST(request(`/api/admin/people/${id}/reset-link`, { method: "POST", cookie, headers: { origin: "http://localhost" } }), params(id));

describe("a password reset by mail", () => {
  it("answers a known and an unknown email alike, and mails only the known one a link that resets the password once and ends the other sessions", async () => {
    const { memberEmail, member } = await adminAndMember();
    const otherDevice = await signIn(memberEmail, OLD);
    const unknown = email("nobody");

    const known = await requestReset(memberEmail);
    const stranger = await requestReset(unknown);
    expect(known.status).toBe(200);
    expect(stranger.status).toBe(known.status);
    expect(await stranger.json()).toEqual(await known.json());

    await mailsSettled();
    expect(smtp.mails.map((mail) => mail.to)).toEqual([[memberEmail]]);
    const [mail] = smtp.mails;
    expect(mail.from).toBe("no-reply@localhost");
    expect(mail.subject).toBe("Reset your Threadline password");
    expect(smtp.refusedLogins).toBe(0);

    // The mail's link goes through Better Auth's check to the reset page, with the token.
    const landed = await open(linkIn(mail, "http://localhost/api/auth/reset-password/"));
    expect(landed.status).toBe(302);
    const location = landed.headers.get("location")!;
    expect(new URL(location).pathname).toBe("/reset-password");
    const token = tokenOf(location);
    expect(await t.app.accounts().resetLinkOpen(token, request("/reset-password"))).toBe(true);

    const reset = await resetPassword(token);
    expect(reset.status).toBe(200);
    expect(sessionCookie(reset)).toBe(""); // a reset signs nobody in

    // Every session of theirs has ended; the old password no longer signs in, the new one does.
    for (const cookie of [member.cookie, otherDevice.cookie]) expect((await whoAmI(cookie)).user).toBeNull();
    expect((await signIn(memberEmail, OLD)).status).toBe(401);
    const fresh = await signIn(memberEmail, NEW);
    expect(fresh.status).toBe(200);
    expect((await whoAmI(fresh.cookie)).user.email).toBe(memberEmail);

    // The token worked once.
    expect(await t.app.accounts().resetLinkOpen(token, request("/reset-password"))).toBe(false);
    const again = await resetPassword(token, "yet another passphrase");
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ code: "INVALID_TOKEN", message: "This reset link has been used or has expired. Ask for a new one." });
    const reopened = await open(linkIn(mail, "http://localhost/api/auth/reset-password/"));
    expect(new URL(reopened.headers.get("location")!).searchParams.get("error")).toBe("INVALID_TOKEN");
    expect((await signIn(memberEmail, NEW)).status).toBe(200);
  });

  it("refuses an expired token, and a password too short or too long, leaving the password as it was", async () => {
    const { memberEmail } = await adminAndMember();
    await requestReset(memberEmail);
    await mailsSettled();
    const token = tokenOf((await open(linkIn(smtp.mails[0], "http://localhost/api/auth/reset-password/"))).headers.get("location")!);

    expect((await resetPassword(token, "short")).status).toBe(400);
    expect((await resetPassword(token, "x".repeat(129))).status).toBe(400);
    await t.pool.query("UPDATE auth_verifications SET expires_at = now() - interval '1 second' WHERE identifier = $1", [`reset-password:${token}`]);
    expect(await t.app.accounts().resetLinkOpen(token, request("/reset-password"))).toBe(false);
    expect((await (await resetPassword(token)).json()).code).toBe("INVALID_TOKEN");
    expect((await signIn(memberEmail, OLD)).status).toBe(200);
  });

  it("lifts a lockout: the reset is the way back in that the lockout's message offers", async () => {
    await t.configure({ AUTH_LOCKOUT_FAILURES: "2" });
    const { memberEmail } = await adminAndMember();
    for (let i = 0; i < 2; i++) expect((await signIn(memberEmail, "not the password")).status).toBe(401);
    expect((await signIn(memberEmail, OLD)).status).toBe(429);

    await requestReset(memberEmail);
    await mailsSettled();
    const token = tokenOf((await open(linkIn(smtp.mails[0], "http://localhost/api/auth/reset-password/"))).headers.get("location")!);
    expect((await resetPassword(token)).status).toBe(200);
    expect((await signIn(memberEmail, NEW)).status).toBe(200);
  });

  it("mails nobody who is waiting for approval or disabled", async () => {
    const { admin, memberEmail, memberId } = await adminAndMember();
    const waiting = email("waiting");
    expect((await signUp(waiting)).status).toBe(403); // invite policy: kept waiting for approval
    await person.PATCH(request(`/api/admin/people/${memberId}`, { method: "PATCH", cookie: admin.cookie, json: { action: "disable" } }), params(memberId));

    for (const who of [waiting, memberEmail]) expect((await requestReset(who)).status).toBe(200);
    await mailsSettled();
    expect(smtp.mails).toEqual([]);
  });
});

describe("the bounds of a reset", () => {
  it("mails one email at most RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL times an hour, reset and sign-in links together, answering each request alike", async () => {
    await t.configure({ RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL: "2" });
    const { memberEmail, admin } = await adminAndMember();
    const adminEmail = (await whoAmI(admin.cookie)).user.email;
    const answers = [];
    for (const ask of [requestReset, requestSignInLink, requestReset]) {
      const response = await ask(memberEmail);
      answers.push([response.status, await response.json()]);
    }
    expect(answers.map(([status]) => status)).toEqual([200, 200, 200]);
    expect(answers[2]).toEqual(answers[0]);
    await mailsSettled();
    expect(mailsTo(memberEmail)).toHaveLength(2);
    // Per email: someone else's mail still goes.
    await requestReset(adminEmail.toUpperCase());
    await mailsSettled();
    expect(mailsTo(adminEmail)).toHaveLength(1);
  });

  it("counts reset requests per address with the other sign-in requests", async () => {
    await t.configure({ RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "2" });
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const from = { [CLIENT_ADDRESS_HEADER]: address };
    expect((await requestReset(email("a"), from)).status).toBe(200);
    expect((await requestReset(email("b"), from)).status).toBe(200);
    const third = await requestReset(email("c"), from);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("reads at most 16 KB of a request, an email of at most 320 characters, a token of at most 200 and a way back of at most 2,000", async () => {
    expect((await authPost("request-password-reset", { email: email("big"), padding: "p".repeat(20_000) })).status).toBe(413);
    expect((await requestReset(`${"a".repeat(310)}@example.org`)).status).toBe(400);
    expect((await resetPassword("t".repeat(201))).status).toBe(400);
    expect((await authPost("sign-in/magic-link", { email: `${"a".repeat(310)}@example.org` })).status).toBe(400);
    expect((await authPost("sign-in/magic-link", { email: email("back"), callbackURL: `/${"c".repeat(2000)}` })).status).toBe(400);
    await mailsSettled();
    expect(smtp.mails).toEqual([]);
  });
});

describe("an admin's one-time reset link", () => {
  it("resets a person's password once, and only an admin may make one", async () => {
    const { admin, member, memberEmail, memberId } = await adminAndMember();
    const adminId = (await whoAmI(admin.cookie)).user.id;

    const forbidden = await makeResetLink(member.cookie, adminId);
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).error.code).toBe("forbidden:admin");
    expect((await makeResetLink("", memberId)).status).toBe(401);

    const made = await makeResetLink(admin.cookie, memberId);
    expect(made.status).toBe(201);
    const { link } = await made.json();
    expect(new URL(link.url).origin + new URL(link.url).pathname).toBe("http://localhost/reset-password");
    expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(Date.parse(link.expiresAt) - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    const token = tokenOf(link.url);

    expect((await resetPassword(token)).status).toBe(200);
    expect((await whoAmI(member.cookie)).user).toBeNull();
    expect((await signIn(memberEmail, NEW)).status).toBe(200);
    expect((await (await resetPassword(token, "once more, with feeling")).json()).code).toBe("INVALID_TOKEN");
    expect(smtp.mails).toEqual([]); // nothing was mailed
  });

  it("ends the person's earlier links when it makes a new one, and refuses a disabled person", async () => {
    const { admin, memberId } = await adminAndMember();
    const first = tokenOf((await (await makeResetLink(admin.cookie, memberId)).json()).link.url);
    const second = tokenOf((await (await makeResetLink(admin.cookie, memberId)).json()).link.url);
    expect((await (await resetPassword(first)).json()).code).toBe("INVALID_TOKEN");
    expect((await resetPassword(second)).status).toBe(200);

    await person.PATCH(request(`/api/admin/people/${memberId}`, { method: "PATCH", cookie: admin.cookie, json: { action: "disable" } }), params(memberId));
    const refused = await makeResetLink(admin.cookie, memberId);
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.message).toMatch(/is disabled: enable them/);
    expect((await makeResetLink(admin.cookie, randomUUID())).status).toBe(404);
  });

  it("is the way to reset without mail: without SMTP_URL nobody can ask for a reset or a sign-in link, known or not", async () => {
    await t.configure({ SMTP_URL: "" });
    expect(t.app.accounts().mail).toBeUndefined();
    const { admin, memberEmail, memberId } = await adminAndMember();
    const known = await requestReset(memberEmail);
    const unknown = await requestReset(email("nobody"));
    expect([known.status, unknown.status]).toEqual([404, 404]);
    const body = await known.json();
    expect(body.error).toEqual({ code: "not_found:mail", message: "This server sends no mail. Ask an admin for a link to reset your password." });
    expect(await unknown.json()).toEqual(body);
    expect((await requestSignInLink(memberEmail)).status).toBe(404);

    const token = tokenOf((await (await makeResetLink(admin.cookie, memberId)).json()).link.url);
    expect((await resetPassword(token)).status).toBe(200);
    expect((await signIn(memberEmail, NEW)).status).toBe(200);
  });
});

describe("a sign-in link", () => {
  it("answers a known and an unknown email alike, mails only the account, and signs in once", async () => {
    const { memberEmail } = await adminAndMember();
    const unknown = email("nobody");
    const known = await requestSignInLink(memberEmail);
    const stranger = await requestSignInLink(unknown);
    expect(known.status).toBe(200);
    expect(stranger.status).toBe(200);
    expect(await stranger.json()).toEqual(await known.json());

    await mailsSettled();
    expect(smtp.mails.map((mail) => mail.to)).toEqual([[memberEmail]]);
    expect(smtp.mails[0].subject).toBe("Your Threadline sign-in link");
    const link = linkIn(smtp.mails[0], "http://localhost/api/auth/magic-link/verify");

    const landed = await open(link);
    expect(landed.status).toBe(302);
    expect(landed.headers.get("location")).toBe("http://localhost/c/somewhere");
    const cookie = sessionCookie(landed);
    expect((await whoAmI(cookie)).user.email).toBe(memberEmail);

    const again = await open(link);
    expect(sessionCookie(again)).toBe("");
    expect(new URL(again.headers.get("location")!).searchParams.get("error")).toBe("INVALID_TOKEN");
    // No account was made for the unknown email (sign-up is the sign-up page's).
    expect((await t.pool.query("SELECT 1 FROM auth_users WHERE email = $1", [unknown])).rowCount).toBe(0);
  });

  it("proves the email: a password set before that (by whoever made the account) no longer signs in", async () => {
    const { memberEmail } = await adminAndMember();
    await requestSignInLink(memberEmail);
    await mailsSettled();
    expect((await open(linkIn(smtp.mails[0], "http://localhost/api/auth/magic-link/verify"))).status).toBe(302);
    expect((await signIn(memberEmail, OLD)).status).toBe(401);
  });

  it("gives no session to someone disabled after the link was sent, and sends them to the sign-in page with the reason", async () => {
    const { admin, memberEmail, memberId } = await adminAndMember();
    await requestSignInLink(memberEmail);
    await mailsSettled();
    const link = linkIn(smtp.mails[0], "http://localhost/api/auth/magic-link/verify");
    await person.PATCH(request(`/api/admin/people/${memberId}`, { method: "PATCH", cookie: admin.cookie, json: { action: "disable" } }), params(memberId));

    const landed = await open(link);
    expect(landed.status).toBe(303);
    expect(landed.headers.get("location")).toBe("/sign-in?error=ACCOUNT_DISABLED");
    expect(sessionCookie(landed)).toBe("");
    expect((await t.pool.query("SELECT 1 FROM auth_sessions WHERE user_id = $1", [memberId])).rowCount).toBe(0);
  });

  it("keeps to the sign-up policy: a sign-up waiting for approval gets no link and no session", async () => {
    const { admin } = await adminAndMember();
    const waiting = email("waiting");
    expect((await signUp(waiting)).status).toBe(403);
    expect((await requestSignInLink(waiting)).status).toBe(200);
    await mailsSettled();
    expect(smtp.mails).toEqual([]);
    const listed = (await (await people.GET(request("/api/admin/people", { cookie: admin.cookie }), undefined)).json()).people;
    expect(listed.find((p: { email: string }) => p.email === waiting).status).toBe("pending");
    expect((await t.pool.query("SELECT 1 FROM auth_sessions s JOIN auth_users u ON u.id = s.user_id WHERE u.email = $1", [waiting])).rowCount).toBe(0);
  });

  it("takes the sign-in page as the way back for any callback that is not this site's own path", async () => {
    const { memberEmail } = await adminAndMember();
    await authPost("sign-in/magic-link", { email: memberEmail, callbackURL: "https://evil.example/landing" });
    await mailsSettled();
    const link = new URL(linkIn(smtp.mails[0], "http://localhost/api/auth/magic-link/verify"));
    expect(link.searchParams.get("callbackURL")).toBe("/");
    expect(link.searchParams.get("errorCallbackURL")).toBe("/sign-in");
  });
});

describe("a mail server that is down or stuck", () => {
  it("costs a request nothing: the answer is the same, given while the server has not said a word, and the failure is logged without the password", async () => {
    const silent = await startSilentServer();
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      await t.configure({ SMTP_URL: `smtp://threadline:hunter2-secret@127.0.0.1:${silent.port}`, SMTP_TIMEOUT_SECONDS: "600" });
      const { memberEmail } = await adminAndMember();
      const known = await requestReset(memberEmail);
      const unknown = await requestReset(email("nobody"));
      expect(known.status).toBe(200);
      expect(await known.json()).toEqual(await unknown.json());
      // The mail is at the server, which says nothing until it is closed (or for 600 seconds), yet the requests have their answers.
      await silent.connected;
      expect(silent.connections()).toBe(1);
      await silent.close();
      await mailsSettled();
    } finally {
      await silent.close();
    }
    const logged = errors.mock.calls.map((call) => call.join(" ")).filter((line) => line.startsWith("[mail]"));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^\[mail\] "Reset your Threadline password" was not sent: /);
    expect(logged.join("\n")).not.toContain("hunter2");
  });

  it("gives a mail up after SMTP_TIMEOUT_SECONDS", async () => {
    const silent = await startSilentServer();
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      await t.configure({ SMTP_URL: `smtp://threadline:pw@127.0.0.1:${silent.port}`, SMTP_TIMEOUT_SECONDS: "1" });
      const { memberEmail } = await adminAndMember();
      expect((await requestSignInLink(memberEmail)).status).toBe(200);
      // Never closed: only the timeout ends this send.
      await mailsSettled();
      expect(silent.connections()).toBe(1);
    } finally {
      await silent.close();
    }
    expect(errors.mock.calls.map((call) => call.join(" ")).filter((line) => line.startsWith("[mail]"))).toHaveLength(1);
  });

  it("answers alike when nothing listens, and logs the refusal", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await t.configure({ SMTP_URL: `smtps://threadline:pw@127.0.0.1:${await closedPort()}` });
    const { memberEmail } = await adminAndMember();
    const known = await requestReset(memberEmail);
    const unknown = await requestReset(email("nobody"));
    expect([known.status, unknown.status]).toEqual([200, 200]);
    expect(await known.json()).toEqual(await unknown.json());
    await mailsSettled();
    expect(errors.mock.calls.map((call) => call.join(" ")).find((line) => line.startsWith("[mail]"))).toMatch(/ECONNREFUSED|ECONNECTION/);
  });

  it("is refused with a wrong password, logged, and the request answered alike", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await t.configure({ SMTP_URL: smtp.url.replace(/:[^:@/]+@/, ":wrong-password@") });
    const { memberEmail } = await adminAndMember();
    expect((await requestReset(memberEmail)).status).toBe(200);
    await mailsSettled();
    expect(smtp.mails).toEqual([]);
    expect(smtp.refusedLogins).toBeGreaterThan(0);
    const logged = errors.mock.calls.map((call) => call.join(" ")).find((line) => line.startsWith("[mail]"));
    expect(logged).toMatch(/EAUTH/);
    expect(logged).not.toContain("wrong-password");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/fresh-copy";
import { ensureProductionBuild, startApp, stopApps, type StartedApp } from "../support/production-app";
import { scratchDatabase, type ScratchDatabase } from "../support/scratch-database";

// Two app servers, as `npm start` runs them, on one database in
// AUTH_MODE=accounts: a session made on one is good on the other, signing
// out or being disabled on one ends it on both, and a lockout counts the
// failures made on either.

let database: ScratchDatabase;
const servers: StartedApp[] = [];

beforeAll(async () => {
  await ensureProductionBuild();
  database = await scratchDatabase("accounts_two_servers");
  for (let i = 0; i < 2; i++) {
    const app = startApp({
      PORT: String(await freePort()),
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: "4",
      WEB_CONCURRENCY: "1",
      AUTH_MODE: "accounts",
      AUTH_LOCKOUT_FAILURES: "3",
      MODEL_PROVIDER: "offline",
    });
    servers.push(app);
    await app.ready();
  }
}, 300_000);

afterAll(async () => {
  await stopApps();
  await database?.drop();
});

const post = (base: string, path: string, json: unknown, cookie = "") =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", origin: base, cookie }, body: JSON.stringify(json) });
const sessionOf = (response: Response) => response.headers.getSetCookie().find((c) => c.startsWith("threadline.session_token="))?.split(";")[0] ?? "";
const me = async (base: string, cookie: string) => (await fetch(`${base}/api/me`, { headers: { cookie } })).json();
const threads = async (base: string, cookie: string) => (await fetch(`${base}/api/threads`, { headers: { cookie } })).status;

describe("two servers on one database", () => {
  it("share sessions: made on one, good on the other; signed out on one, gone from both", async () => {
    const [a, b] = servers.map((server) => server.base);
    const admin = await post(a, "/api/auth/sign-up/email", { name: "Ana", email: "ana@example.org", password: "correct horse battery" });
    expect(admin.status).toBe(200);
    const cookie = sessionOf(admin);
    expect((await me(b, cookie)).user).toMatchObject({ email: "ana@example.org", role: "admin" });
    expect(await threads(b, cookie)).toBe(200);

    const signedOut = await post(b, "/api/auth/sign-out", {}, cookie);
    expect(signedOut.status).toBe(200);
    expect(await threads(a, cookie)).toBe(401);
  });

  it("end a disabled person's sessions on every server at once", async () => {
    const [a, b] = servers.map((server) => server.base);
    const admin = sessionOf(await post(a, "/api/auth/sign-in/email", { email: "ana@example.org", password: "correct horse battery" }));
    const invite = await (await post(a, "/api/admin/invites", {}, admin)).json();
    const code = new URL(invite.invite.url).pathname.split("/").pop();
    const landed = await fetch(`${b}/invite/${code}`, { redirect: "manual" });
    const inviteCookie = landed.headers.getSetCookie()[0].split(";")[0];
    const member = sessionOf(await post(b, "/api/auth/sign-up/email", { name: "Bo", email: "bo@example.org", password: "another long phrase" }, inviteCookie));
    expect(await threads(a, member)).toBe(200);
    const id = (await me(a, member)).user.id;

    const disabled = await fetch(`${b}/api/admin/people/${id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", origin: b, cookie: admin },
      body: JSON.stringify({ action: "disable" }),
    });
    expect(disabled.status).toBe(200);
    expect(await threads(a, member)).toBe(401);
    expect(await threads(b, member)).toBe(401);
  });

  it("count failed sign-ins on either server towards one lockout", async () => {
    const [a, b] = servers.map((server) => server.base);
    const attempt = (base: string, password: string) => post(base, "/api/auth/sign-in/email", { email: "ana@example.org", password });
    expect((await attempt(a, "wrong one")).status).toBe(401);
    expect((await attempt(b, "wrong two")).status).toBe(401);
    expect((await attempt(a, "wrong three")).status).toBe(401);
    const locked = await attempt(b, "correct horse battery");
    expect(locked.status).toBe(429);
    expect((await locked.json()).error.code).toBe("rate_limited:locked");
  });
});

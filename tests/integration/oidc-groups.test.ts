import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as auth from "@/app/api/auth/[...all]/route";
import * as groupsRoute from "@/app/api/admin/groups/route";
import * as memberRoute from "@/app/api/admin/groups/[id]/members/[personId]/route";
import * as budgetRoute from "@/app/api/admin/budgets/[scope]/route";
import * as meBudget from "@/app/api/me/budget/route";
import type { BudgetGroup } from "@/lib/protocol/budgets";
import { request } from "../support/api";
import { authPost, sessionCookie, signUp, whoAmI } from "../support/accounts";
import { integrationApp } from "../support/integration";
import { signInAtProvider, startTestOidc, type TestOidc, type TestPerson } from "../support/oidc-provider";

// AUTH_OIDC_GROUPS_CLAIM: at each sign-in through a real OIDC provider on
// loopback (tests/support/oidc-provider.ts), whose groups claim this test
// changes between sign-ins, the person's memberships from the claim become
// the groups it names, while the ones an admin made stay.

const APP_URL = "http://localhost";
const callbackUrl = `${APP_URL}/api/auth/callback/oidc`;

const people: Record<string, TestPerson> = {};
let provider: TestOidc;

beforeAll(async () => {
  provider = await startTestOidc({ redirectUris: [callbackUrl], people });
});
afterAll(async () => {
  await provider?.close();
});

const t = integrationApp({
  model: "offline",
  settings: () => ({
    AUTH_MODE: "accounts",
    AUTH_SIGNUP: "open",
    RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0",
    APP_URL,
    AUTH_OIDC_ISSUER: provider.url,
    AUTH_OIDC_CLIENT_ID: provider.clientId,
    AUTH_OIDC_CLIENT_SECRET: provider.clientSecret,
    AUTH_OIDC_GROUPS_CLAIM: "groups",
  }),
});

beforeEach(async () => {
  await t.pool.query("TRUNCATE auth_users, auth_first_admin, auth_verifications, budgets, budget_groups, budget_group_members CASCADE");
});

/** A whole sign-in through the provider as `login`: the session cookie it ends with. */
async function oidcSignIn(login: string): Promise<string> {
  const started = await authPost("sign-in/social", { provider: "oidc", callbackURL: "/" });
  const { url } = await started.json();
  const cookie = started.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const back = await signInAtProvider(url, login);
  const response = await auth.GET(request(`${back.pathname}${back.search}`, { cookie }), undefined);
  expect(response.status).toBe(302);
  expect(response.headers.get("location")).toBe("/");
  return sessionCookie(response);
}

async function admin(): Promise<string> {
  const made = await signUp(`admin-${randomUUID().slice(0, 8)}@example.org`);
  expect(made.status).toBe(200);
  return made.cookie;
}

async function group(cookie: string, name: string): Promise<string> {
  const response = await groupsRoute.POST(request("/api/admin/groups", { method: "POST", cookie, json: { name } }), undefined);
  expect(response.status).toBe(201);
  return (await response.json()).group.id;
}

/** The groups `personId` is in, by name, with whether the claim put them there. */
async function membershipsOf(cookie: string, personId: string): Promise<Array<[string, boolean]>> {
  const { groups } = (await (await groupsRoute.GET(request("/api/admin/groups", { cookie }), undefined)).json()) as { groups: BudgetGroup[] };
  return groups.flatMap((g) => g.members.filter((m) => m.id === personId).map((m): [string, boolean] => [g.name, m.fromClaim]));
}

describe("the OIDC groups claim", () => {
  it("puts a person in the groups it names at each sign-in, as written, and keeps the memberships an admin made", async () => {
    const adminCookie = await admin();
    for (const name of ["Sales", "sales", "Ops", "Eng"]) await group(adminCookie, name);
    const login = `ana-${randomUUID().slice(0, 8)}`;
    people[login] = { email: `${login}@example.org`, groups: ["Sales", "Nobody has this one", 7 as never] };

    const session = await oidcSignIn(login);
    const ana = (await whoAmI(session)).user.id as string;
    expect(await membershipsOf(adminCookie, ana)).toEqual([["Sales", true]]);

    // By hand: an admin's, whatever the claim says later.
    const ops = (await (await groupsRoute.GET(request("/api/admin/groups", { cookie: adminCookie }), undefined)).json()).groups.find((g: BudgetGroup) => g.name === "Ops").id;
    const added = await memberRoute.PUT(request(`/api/admin/groups/${ops}/members/${ana}`, { method: "PUT", cookie: adminCookie }), {
      params: Promise.resolve({ id: ops, personId: ana }),
    });
    expect(added.status).toBe(200);

    // One string of names, separated by commas or spaces.
    people[login].groups = "Eng, sales";
    await oidcSignIn(login);
    expect(await membershipsOf(adminCookie, ana)).toEqual([
      ["Eng", true],
      ["Ops", false],
      ["sales", true],
    ]);

    // No claim at all: no groups from it.
    delete people[login].groups;
    await oidcSignIn(login);
    expect(await membershipsOf(adminCookie, ana)).toEqual([["Ops", false]]);
  });

  it("binds the person by the budget of the groups it names", async () => {
    const adminCookie = await admin();
    const small = await group(adminCookie, "Interns");
    const put = await budgetRoute.PUT(request(`/api/admin/budgets/group:${small}`, { method: "PUT", cookie: adminCookie, json: { amount: 1, unit: "usd", period: "day" } }), {
      params: Promise.resolve({ scope: `group:${small}` }),
    });
    expect(put.status).toBe(200);
    const login = `bo-${randomUUID().slice(0, 8)}`;
    people[login] = { email: `${login}@example.org`, groups: ["Interns"] };
    const session = await oidcSignIn(login);
    const budget = (await (await meBudget.GET(request("/api/me/budget", { cookie: session }), undefined)).json()).budget;
    expect(budget).toMatchObject({ amount: 1, unit: "usd", period: "day", spent: 0 });
  });

  it("reads at most the claim's first 100 names", async () => {
    const adminCookie = await admin();
    await group(adminCookie, "g99");
    await group(adminCookie, "g100");
    const login = `cy-${randomUUID().slice(0, 8)}`;
    people[login] = { email: `${login}@example.org`, groups: Array.from({ length: 150 }, (_, i) => `g${i}`) };
    const cy = (await whoAmI(await oidcSignIn(login))).user.id as string;
    expect(await membershipsOf(adminCookie, cy)).toEqual([["g99", true]]);
  });
});

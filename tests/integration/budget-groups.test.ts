import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import * as groupsRoute from "@/app/api/admin/groups/route";
import * as groupRoute from "@/app/api/admin/groups/[id]/route";
import * as memberRoute from "@/app/api/admin/groups/[id]/members/[personId]/route";
import * as budgetsRoute from "@/app/api/admin/budgets/route";
import * as budgetRoute from "@/app/api/admin/budgets/[scope]/route";
import * as meBudget from "@/app/api/me/budget/route";
import { MAX_GROUP_MEMBERS, MAX_GROUPS } from "@/lib/budgets/groups";
import type { BudgetGroup, BudgetStatus } from "@/lib/protocol/budgets";
import { request, visitor } from "../support/api";
import { signUp } from "../support/accounts";
import { integrationApp } from "../support/integration";

// Budget groups and the budgets an admin sets, through the admin's routes on
// the real database (AUTH_MODE=accounts), and what each person's
// GET /api/me/budget says follows: their own budget, else the smallest of
// their groups', else the default (never an admin's), a guest the guests'.
const t = integrationApp({ model: "offline", settings: { AUTH_MODE: "accounts", AUTH_SIGNUP: "open", AUTH_GUESTS: "1", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0" } });

const email = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.org`;

beforeEach(async () => {
  await t.pool.query("TRUNCATE auth_users, auth_first_admin, auth_verifications, budgets, budget_groups, budget_group_members, model_calls, spend_days CASCADE");
});

interface Someone {
  id: string;
  cookie: string;
}

async function person(who: string): Promise<Someone> {
  const made = await signUp(email(who));
  expect(made.status).toBe(200);
  return { id: made.body.user!.id, cookie: made.cookie };
}

/** An install with its admin (the first account) and two members. */
async function install() {
  const admin = await person("admin");
  return { admin, bo: await person("bo"), cy: await person("cy") };
}

const params = <P>(value: P) => ({ params: Promise.resolve(value) });

const listGroups = (cookie: string) => groupsRoute.GET(request("/api/admin/groups", { cookie }), undefined);
const createGroup = (cookie: string, json: unknown) => groupsRoute.POST(request("/api/admin/groups", { method: "POST", cookie, json }), undefined);
const renameGroup = (cookie: string, id: string, json: unknown) => groupRoute.PATCH(request(`/api/admin/groups/${id}`, { method: "PATCH", cookie, json }), params({ id }));
const deleteGroup = (cookie: string, id: string) => groupRoute.DELETE(request(`/api/admin/groups/${id}`, { method: "DELETE", cookie }), params({ id }));
const addMember = (cookie: string, id: string, personId: string) =>
  memberRoute.PUT(request(`/api/admin/groups/${id}/members/${personId}`, { method: "PUT", cookie }), params({ id, personId }));
const removeMember = (cookie: string, id: string, personId: string) =>
  memberRoute.DELETE(request(`/api/admin/groups/${id}/members/${personId}`, { method: "DELETE", cookie }), params({ id, personId }));
const setBudget = (cookie: string, scope: string, json: unknown) =>
  budgetRoute.PUT(request(`/api/admin/budgets/${scope}`, { method: "PUT", cookie, json }), params({ scope }));

async function group(cookie: string, name: string): Promise<BudgetGroup> {
  const response = await createGroup(cookie, { name });
  expect(response.status).toBe(201);
  return (await response.json()).group;
}

async function groups(cookie: string): Promise<BudgetGroup[]> {
  const response = await listGroups(cookie);
  expect(response.status).toBe(200);
  return (await response.json()).groups;
}

async function myBudget(cookie: string): Promise<BudgetStatus | null> {
  const response = await meBudget.GET(request("/api/me/budget", { cookie }), undefined);
  expect(response.status).toBe(200);
  return (await response.json()).budget;
}

const errorOf = async (response: Response) => ({ status: response.status, code: (await response.json()).error.code as string });

/** Spends `cost` dollars and `tokens` tokens on `owner`'s bill, as a model call's reservation does. */
async function spend(owner: string, cost: number, tokens = 100) {
  const { rows } = await t.pool.query(
    `SELECT refused FROM threadline_reserve_call($1, $2, true, now(), 'UTC', NULL, NULL, NULL, 'answer', 'triage', 'mock:model', $3, 0, 0, $4, 0)`,
    [randomUUID(), owner, tokens, cost],
  );
  expect(rows[0].refused).toBeNull();
}

const usd = (amount: number, period = "day") => ({ amount, unit: "usd", period });

describe("budget groups", () => {
  it("are made, renamed, listed with their members and budget, and deleted with their budget", async () => {
    const { admin, bo, cy } = await install();
    const sales = await group(admin.cookie, "  Sales  ");
    expect(sales).toMatchObject({ name: "Sales", members: [], budget: null });
    const ops = await group(admin.cookie, "Ops");

    expect((await addMember(admin.cookie, sales.id, bo.id)).status).toBe(200);
    const added = await addMember(admin.cookie, sales.id, cy.id);
    expect(await added.json()).toMatchObject({ member: { id: cy.id, email: expect.stringMatching(/^cy-/), fromClaim: false } });
    // Twice is once.
    expect((await addMember(admin.cookie, sales.id, cy.id)).status).toBe(200);
    expect((await setBudget(admin.cookie, `group:${sales.id}`, usd(3))).status).toBe(200);

    const renamed = await renameGroup(admin.cookie, sales.id, { name: "Sales EU" });
    expect(renamed.status).toBe(200);
    expect((await renamed.json()).group).toMatchObject({ id: sales.id, name: "Sales EU", budget: usd(3) });

    const listed = await groups(admin.cookie);
    expect(listed.map((g) => g.name)).toEqual(["Ops", "Sales EU"]);
    expect(listed[1].members.map((m) => [m.id, m.name, m.fromClaim])).toEqual([
      [bo.id, expect.stringMatching(/^bo-/), false],
      [cy.id, expect.stringMatching(/^cy-/), false],
    ]);
    expect(listed[1].budget).toEqual(usd(3));

    expect((await removeMember(admin.cookie, sales.id, bo.id)).status).toBe(204);
    // Taking out someone who is not in it changes nothing.
    expect((await removeMember(admin.cookie, sales.id, bo.id)).status).toBe(204);
    expect((await groups(admin.cookie)).find((g) => g.id === sales.id)!.members.map((m) => m.id)).toEqual([cy.id]);

    expect((await deleteGroup(admin.cookie, sales.id)).status).toBe(204);
    expect((await groups(admin.cookie)).map((g) => g.id)).toEqual([ops.id]);
    // Its budget went with it, and its members' rows.
    const budgets = await (await budgetsRoute.GET(request("/api/admin/budgets", { cookie: admin.cookie }), undefined)).json();
    expect(budgets.budgets).toEqual([]);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM budget_group_members")).rows[0].n).toBe(0);
    expect(await errorOf(await deleteGroup(admin.cookie, sales.id))).toEqual({ status: 404, code: "not_found:group" });
  });

  it("refuse a name another group has (409), an empty or too long one, and a body that is not a name", async () => {
    const { admin } = await install();
    const sales = await group(admin.cookie, "Sales");
    const ops = await group(admin.cookie, "Ops");
    expect(await errorOf(await createGroup(admin.cookie, { name: " Sales " }))).toEqual({ status: 409, code: "conflict:group_name" });
    expect(await errorOf(await renameGroup(admin.cookie, ops.id, { name: "Sales" }))).toEqual({ status: 409, code: "conflict:group_name" });
    // The name is compared as written: another case is another group.
    expect((await createGroup(admin.cookie, { name: "sales" })).status).toBe(201);
    expect(await errorOf(await createGroup(admin.cookie, { name: "   " }))).toEqual({ status: 400, code: "bad_request:validation" });
    expect((await createGroup(admin.cookie, { name: "x".repeat(100) })).status).toBe(201);
    expect(await errorOf(await createGroup(admin.cookie, { name: "x".repeat(101) }))).toEqual({ status: 400, code: "bad_request:validation" });
    expect(await errorOf(await createGroup(admin.cookie, { name: "Ops2", extra: 1 }))).toEqual({ status: 400, code: "bad_request:validation" });
    expect(await errorOf(await createGroup(admin.cookie, { name: "y".repeat(2000) }))).toEqual({ status: 413, code: "payload_too_large:body" });
    expect((await renameGroup(admin.cookie, sales.id, { name: "Sales" })).status).toBe(200);
  });

  it("answer 400 to an id that is not one, 404 to a group or person that is not there", async () => {
    const { admin, bo } = await install();
    const sales = await group(admin.cookie, "Sales");
    const nobody = randomUUID();
    expect(await errorOf(await renameGroup(admin.cookie, "sales", { name: "x" }))).toEqual({ status: 400, code: "bad_request:group_id" });
    expect(await errorOf(await deleteGroup(admin.cookie, "1"))).toEqual({ status: 400, code: "bad_request:group_id" });
    expect(await errorOf(await addMember(admin.cookie, sales.id, "bo"))).toEqual({ status: 400, code: "bad_request:person_id" });
    expect(await errorOf(await renameGroup(admin.cookie, nobody, { name: "x" }))).toEqual({ status: 404, code: "not_found:group" });
    expect(await errorOf(await addMember(admin.cookie, nobody, bo.id))).toEqual({ status: 404, code: "not_found:group" });
    expect(await errorOf(await removeMember(admin.cookie, nobody, bo.id))).toEqual({ status: 404, code: "not_found:group" });
    expect(await errorOf(await addMember(admin.cookie, sales.id, nobody))).toEqual({ status: 404, code: "not_found:person" });
    expect(await errorOf(await setBudget(admin.cookie, `group:${nobody}`, usd(1)))).toEqual({ status: 404, code: "not_found:group" });
  });

  it("are the admins' alone: 401 without a session, 403 for a member", async () => {
    const { admin, bo } = await install();
    const sales = await group(admin.cookie, "Sales");
    expect(await errorOf(await listGroups(""))).toEqual({ status: 401, code: "unauthorized:session" });
    expect(await errorOf(await listGroups(bo.cookie))).toEqual({ status: 403, code: "forbidden:admin" });
    expect(await errorOf(await createGroup(bo.cookie, { name: "Mine" }))).toEqual({ status: 403, code: "forbidden:admin" });
    expect(await errorOf(await renameGroup(bo.cookie, sales.id, { name: "Mine" }))).toEqual({ status: 403, code: "forbidden:admin" });
    expect(await errorOf(await deleteGroup(bo.cookie, sales.id))).toEqual({ status: 403, code: "forbidden:admin" });
    expect(await errorOf(await addMember(bo.cookie, sales.id, bo.id))).toEqual({ status: 403, code: "forbidden:admin" });
    expect(await errorOf(await removeMember(bo.cookie, sales.id, bo.id))).toEqual({ status: 403, code: "forbidden:admin" });
    expect((await groups(admin.cookie))[0].members).toEqual([]);
  });

  it(`stop at ${MAX_GROUPS} groups`, async () => {
    const { admin } = await install();
    await t.pool.query("INSERT INTO budget_groups (id, name) SELECT gen_random_uuid(), 'group ' || n FROM generate_series(1, $1) n", [MAX_GROUPS - 1]);
    expect((await createGroup(admin.cookie, { name: "the last" })).status).toBe(201);
    const refused = await createGroup(admin.cookie, { name: "one more" });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toEqual({ code: "conflict:groups_full", message: `There are ${MAX_GROUPS} groups already, the most there may be. Delete one first.` });
    expect((await groups(admin.cookie)).length).toBe(MAX_GROUPS);
  });

  it(`stop a group at ${MAX_GROUP_MEMBERS.toLocaleString("en-US")} members`, async () => {
    const { admin, bo, cy } = await install();
    const big = await group(admin.cookie, "Everyone");
    await t.pool.query("INSERT INTO budget_group_members (group_id, person) SELECT $1, 'p' || n FROM generate_series(1, $2) n", [big.id, MAX_GROUP_MEMBERS - 1]);
    expect((await addMember(admin.cookie, big.id, bo.id)).status).toBe(200);
    expect(await errorOf(await addMember(admin.cookie, big.id, cy.id))).toEqual({ status: 409, code: "conflict:group_full" });
    // Someone already in it is still fine.
    expect((await addMember(admin.cookie, big.id, bo.id)).status).toBe(200);
  });
});

describe("a person's budget", () => {
  it("is their own, else the smallest of their groups', else the default; an admin has none of the default", async () => {
    const { admin, bo, cy } = await install();
    expect(await myBudget(bo.cookie)).toBeNull();
    expect((await setBudget(admin.cookie, "default", usd(5))).status).toBe(200);
    expect(await myBudget(bo.cookie)).toMatchObject(usd(5));
    expect(await myBudget(admin.cookie)).toBeNull();

    const big = await group(admin.cookie, "Big");
    const small = await group(admin.cookie, "Small");
    await setBudget(admin.cookie, `group:${big.id}`, usd(3));
    // $10 a week is less than $3 a day.
    await setBudget(admin.cookie, `group:${small.id}`, usd(10, "week"));
    await addMember(admin.cookie, big.id, bo.id);
    expect(await myBudget(bo.cookie)).toMatchObject(usd(3));
    await addMember(admin.cookie, small.id, bo.id);
    expect(await myBudget(bo.cookie)).toMatchObject(usd(10, "week"));
    // A group without a budget adds none.
    const none = await group(admin.cookie, "No budget");
    await addMember(admin.cookie, none.id, cy.id);
    expect(await myBudget(cy.cookie)).toMatchObject(usd(5));

    // Their own wins, larger or not.
    expect((await setBudget(admin.cookie, `person:${bo.id}`, usd(20))).status).toBe(200);
    expect(await myBudget(bo.cookie)).toMatchObject(usd(20));
    await setBudget(admin.cookie, `person:${bo.id}`, null);
    await removeMember(admin.cookie, small.id, bo.id);
    expect(await myBudget(bo.cookie)).toMatchObject(usd(3));

    // An admin's own, or a group's, binds them.
    await addMember(admin.cookie, big.id, admin.id);
    expect(await myBudget(admin.cookie)).toMatchObject(usd(3));
  });

  it("says what was spent of it in the period and what is left", async () => {
    const { admin, bo } = await install();
    const team = await group(admin.cookie, "Team");
    await setBudget(admin.cookie, `group:${team.id}`, usd(2));
    await addMember(admin.cookie, team.id, bo.id);
    await spend(bo.id, 1.7, 1200);
    const status = await myBudget(bo.cookie);
    expect(status).toMatchObject({ ...usd(2), spent: 1.7 });
    expect(status!.remaining).toBeCloseTo(0.3, 9);
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(status!.resetsAt).toBe(midnight.toISOString());

    await setBudget(admin.cookie, `group:${team.id}`, { amount: 20000, unit: "tokens", period: "month" });
    expect(await myBudget(bo.cookie)).toMatchObject({ amount: 20000, unit: "tokens", period: "month", spent: 1200, remaining: 18800 });
  });

  it("of a guest is the guests' budget, whatever the default", async () => {
    const { admin } = await install();
    const guest = await visitor();
    await setBudget(admin.cookie, "default", usd(5));
    expect(await myBudget(guest.cookie)).toBeNull();
    await setBudget(admin.cookie, "guests", usd(0.5));
    expect(await myBudget(guest.cookie)).toMatchObject(usd(0.5));
  });

  it("follows the operator's BUDGET_DEFAULT until an admin sets the default", async () => {
    await t.configure({ BUDGET_DEFAULT: "$7/day" });
    const { admin, bo } = await install();
    expect(await myBudget(bo.cookie)).toMatchObject(usd(7));
    await setBudget(admin.cookie, "default", usd(4));
    expect(await myBudget(bo.cookie)).toMatchObject(usd(4));
  });

  it("is set only for a person who has an account: 404 for anyone else", async () => {
    const { admin, bo } = await install();
    const nobody = randomUUID();
    expect(await errorOf(await setBudget(admin.cookie, `person:${nobody}`, usd(1)))).toEqual({ status: 404, code: "not_found:person" });
    expect(await errorOf(await setBudget(admin.cookie, `person:${nobody}`, null))).toEqual({ status: 404, code: "not_found:person" });
    expect((await t.pool.query("SELECT count(*)::int AS n FROM budgets")).rows[0].n).toBe(0);
    expect((await setBudget(admin.cookie, `person:${bo.id}`, usd(1))).status).toBe(200);
  });

  it("takes only a budget or null for a scope there is: a clear 400 for anything else, 413 past 1 KB, the admins' alone", async () => {
    const { admin, bo } = await install();
    expect(await errorOf(await setBudget(admin.cookie, "everyone", usd(1)))).toEqual({ status: 400, code: "bad_request:scope" });
    expect(await errorOf(await setBudget(admin.cookie, `group:${randomUUID()}`, usd(1)))).toEqual({ status: 404, code: "not_found:group" });
    for (const bad of [{ amount: -1, unit: "usd", period: "day" }, { amount: 1, unit: "euro", period: "day" }, { amount: 1, unit: "usd", period: "year" }, { amount: 0.0000001, unit: "usd", period: "day" }, { amount: 1e10, unit: "tokens", period: "day" }, { amount: 1, unit: "usd", period: "day", extra: 1 }, "two dollars"]) {
      const refused = await setBudget(admin.cookie, "default", bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await errorOf(await setBudget(admin.cookie, "default", { ...usd(1), padding: "x".repeat(2000) }))).toEqual({ status: 413, code: "payload_too_large:body" });
    expect(await errorOf(await setBudget(bo.cookie, "default", usd(1)))).toEqual({ status: 403, code: "forbidden:admin" });
    expect((await t.pool.query("SELECT count(*)::int AS n FROM budgets")).rows[0].n).toBe(0);
    // Set, then cleared with null: the default is the operator's again (none here).
    expect((await setBudget(admin.cookie, "guests", { amount: 20000, unit: "tokens", period: "month" })).status).toBe(200);
    expect((await (await budgetsRoute.GET(request("/api/admin/budgets", { cookie: admin.cookie }), undefined)).json()).budgets).toEqual([
      { scope: "guests", amount: 20000, unit: "tokens", period: "month" },
    ]);
    expect((await setBudget(admin.cookie, "guests", null)).status).toBe(200);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM budgets")).rows[0].n).toBe(0);
  });
});

import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import * as usage from "@/app/api/admin/usage/route";
import * as invites from "@/app/api/admin/invites/route";
import * as invite from "@/app/invite/[code]/route";
import { Budgets } from "@/lib/budgets/budgets";
import { SpendReport } from "@/lib/budgets/spend-report";
import type { UsageLine, UsageReport } from "@/lib/protocol/budgets";
import { request } from "../support/api";
import { signUp, whoAmI } from "../support/accounts";
import { integrationApp } from "../support/integration";

// Who spent what, as an admin reads it: calls reserved and settled on the
// owners' bills by the database functions every model call goes through,
// then GET /api/admin/usage summing them by person, group, model and day,
// as JSON and as CSV, for admins only.
const t = integrationApp({ model: "offline", settings: { AUTH_MODE: "accounts", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0" } });

const email = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.org`;

beforeEach(async () => {
  await t.pool.query("TRUNCATE auth_users, auth_first_admin, auth_verifications, model_calls, spend_days, budget_groups, budgets CASCADE");
});

/** A model call on `owner`'s bill on `day` (noon UTC), reserved at its output cap then settled to what it spent. */
async function call(owner: string, day: string, model: string, spent: { input: number; output: number; cost: number | null }) {
  const id = randomUUID();
  const at = new Date(`${day}T12:00:00Z`);
  const priced = spent.cost !== null;
  const { rows } = await t.pool.query<{ refused: string | null }>(
    "SELECT refused FROM threadline_reserve_call($1, $2, true, $3, 'UTC', NULL, NULL, NULL, 'answer', 'Triage', $4, $5, 4096, 1, $6, $7)",
    [id, owner, at, model, spent.input, priced ? 0.5 : null, priced ? 0.001 : null],
  );
  expect(rows[0].refused).toBeNull();
  const { rows: settled } = await t.pool.query<{ ok: boolean }>("SELECT threadline_settle_call($1, $2, $3, 0, 0, $4, true, $5) AS ok", [
    id,
    spent.input,
    spent.output,
    spent.cost,
    at,
  ]);
  expect(settled[0].ok).toBe(true);
}

/** A turn a budget refused on `owner`'s `day`, counted as the chat route's gate counts one. */
async function refusedTurn(owner: string, day: string, model: string) {
  const budgets = new Budgets({ pool: () => t.pool, settings: { BUDGET_TIME_ZONE: "UTC" }, unknownIsGuest: true, now: () => new Date(`${day}T12:00:00Z`) });
  await budgets.countRefusal(owner, model);
}

async function group(name: string, members: string[]): Promise<string> {
  const id = randomUUID();
  await t.pool.query("INSERT INTO budget_groups (id, name) VALUES ($1, $2)", [id, name]);
  for (const person of members) await t.pool.query("INSERT INTO budget_group_members (group_id, person) VALUES ($1, $2)", [id, person]);
  return id;
}

async function inviteCookie(adminCookie: string): Promise<string> {
  const made = await invites.POST(request("/api/admin/invites", { method: "POST", cookie: adminCookie }), undefined);
  const code = new URL((await made.json()).invite.url).pathname.split("/").pop()!;
  const landed = await invite.GET(request(`/invite/${code}`), { params: Promise.resolve({ code }) });
  return landed.headers.getSetCookie()[0].split(";")[0];
}

const get = (query: string, cookie: string) => usage.GET(request(`/api/admin/usage?${query}`, { cookie }), undefined);

async function report(query: string, cookie: string): Promise<UsageReport> {
  const response = await get(query, cookie);
  expect(response.status).toBe(200);
  return response.json();
}

const byKey = (rows: UsageLine[]) => Object.fromEntries(rows.map((row) => [row.key, row]));

/** The install: an admin (Ada), a member (Bob), a guest; Ada and Bob in "Research", Ada also in "Ops". */
async function install() {
  const admin = await signUp(email("ada"), { name: "Ada Admin" });
  const adminId = (await whoAmI(admin.cookie)).user.id as string;
  // A name a spreadsheet would take for a formula, with a comma and a quote in it.
  const member = await signUp(email("bob"), { name: '=HYPERLINK("x"), Bob', cookie: await inviteCookie(admin.cookie) });
  const memberId = (await whoAmI(member.cookie)).user.id as string;
  const guest = randomUUID();
  const research = await group("Research", [adminId, memberId]);
  const ops = await group("Ops", [adminId]);
  return { admin, adminId, member, memberId, guest, research, ops };
}

describe("GET /api/admin/usage", () => {
  it("sums the calls on the bill by person, group, model and day over the range", async () => {
    const { admin, adminId, memberId, guest, research, ops } = await install();
    await call(adminId, "2026-03-01", "openai:gpt-4.1-mini", { input: 100, output: 50, cost: 0.25 });
    await call(adminId, "2026-03-01", "openai:gpt-4.1-mini", { input: 10, output: 5, cost: 0.5 });
    await call(adminId, "2026-03-03", "anthropic:claude-haiku-4-5", { input: 1000, output: 500, cost: 2 });
    await call(memberId, "2026-03-02", "openai:gpt-4.1-mini", { input: 7, output: 3, cost: 0.125 });
    await call(guest, "2026-03-02", "openai:gpt-4.1-mini", { input: 1, output: 2, cost: 0.0625 });
    // Outside the range, on either side: not counted.
    await call(adminId, "2026-02-28", "openai:gpt-4.1-mini", { input: 9999, output: 9999, cost: 99 });
    await call(memberId, "2026-03-04", "openai:gpt-4.1-mini", { input: 9999, output: 9999, cost: 99 });
    await refusedTurn(memberId, "2026-03-02", "openai:gpt-4.1-mini");
    await refusedTurn(memberId, "2026-03-03", "openai:gpt-4.1-mini");
    const range = "from=2026-03-01&to=2026-03-03";

    const people = await report(`${range}&groupBy=person`, admin.cookie);
    expect(people.truncated).toBe(false);
    // Largest first; each counted at what the provider reported, not at the reservation.
    expect(people.rows.map((row) => row.key)).toEqual([adminId, memberId, guest]);
    expect(people.rows[0]).toEqual({ key: adminId, label: expect.stringMatching(/^Ada Admin <ada-.+@example\.org>$/), calls: 3, inputTokens: 1110, outputTokens: 555, cost: 2.75, refused: 0 });
    expect(people.rows[1]).toMatchObject({ calls: 1, inputTokens: 7, outputTokens: 3, cost: 0.125, refused: 2 });
    expect(people.rows[2]).toEqual({ key: guest, label: `Guest ${guest.slice(0, 8)}`, calls: 1, inputTokens: 1, outputTokens: 2, cost: 0.0625, refused: 0 });

    // Ada counts in both her groups; the guest is in none.
    const groups = byKey((await report(`${range}&groupBy=group`, admin.cookie)).rows);
    expect(Object.keys(groups).sort()).toEqual([research, ops, "none"].sort());
    expect(groups[research]).toMatchObject({ label: "Research", calls: 4, inputTokens: 1117, outputTokens: 558, cost: 2.875, refused: 2 });
    expect(groups[ops]).toMatchObject({ label: "Ops", calls: 3, cost: 2.75 });
    expect(groups.none).toMatchObject({ label: "No group", calls: 1, cost: 0.0625 });

    const models = await report(`${range}&groupBy=model`, admin.cookie);
    expect(models.rows).toEqual([
      { key: "anthropic:claude-haiku-4-5", label: "anthropic:claude-haiku-4-5", calls: 1, inputTokens: 1000, outputTokens: 500, cost: 2, refused: 0 },
      { key: "openai:gpt-4.1-mini", label: "openai:gpt-4.1-mini", calls: 4, inputTokens: 118, outputTokens: 60, cost: 0.9375, refused: 2 },
    ]);

    // Every day in order.
    const days = await report(`${range}&groupBy=day`, admin.cookie);
    expect(days.rows.map((row) => [row.key, row.calls, row.cost, row.refused])).toEqual([
      ["2026-03-01", 2, 0.75, 0],
      ["2026-03-02", 2, 0.1875, 1],
      ["2026-03-03", 1, 2, 1],
    ]);
  });

  it("shows a day with no spend as zeros, so the chart leaves no day out", async () => {
    const { admin, adminId } = await install();
    await call(adminId, "2026-05-02", "m", { input: 1, output: 1, cost: 1 });
    const days = await report("from=2026-04-30&to=2026-05-03&groupBy=day", admin.cookie);
    expect(days.rows).toEqual(
      ["2026-04-30", "2026-05-01", "2026-05-02", "2026-05-03"].map((key) => ({
        key,
        label: key,
        calls: key === "2026-05-02" ? 1 : 0,
        inputTokens: key === "2026-05-02" ? 1 : 0,
        outputTokens: key === "2026-05-02" ? 1 : 0,
        cost: key === "2026-05-02" ? 1 : 0,
        refused: 0,
      })),
    );
  });

  it("gives no cost to a line when a call among it had no price", async () => {
    const { admin, adminId, memberId } = await install();
    await call(adminId, "2026-03-01", "priced", { input: 10, output: 10, cost: 1 });
    await call(adminId, "2026-03-02", "unpriced", { input: 10, output: 10, cost: null });
    await call(memberId, "2026-03-01", "priced", { input: 10, output: 10, cost: 1 });
    // A refused turn alone spent nothing: it leaves a line's cost alone.
    await refusedTurn(memberId, "2026-03-02", "unpriced");
    const range = "from=2026-03-01&to=2026-03-02";
    const people = byKey((await report(`${range}&groupBy=person`, admin.cookie)).rows);
    expect(people[adminId].cost).toBeNull();
    expect(people[memberId]).toMatchObject({ cost: 1, refused: 1 });
    const models = byKey((await report(`${range}&groupBy=model`, admin.cookie)).rows);
    expect(models.priced.cost).toBe(2);
    expect(models.unpriced).toMatchObject({ calls: 1, cost: null, refused: 1 });
    const days = byKey((await report(`${range}&groupBy=day`, admin.cookie)).rows);
    expect(days["2026-03-01"].cost).toBe(2);
    expect(days["2026-03-02"].cost).toBeNull();
    const groups = (await report(`${range}&groupBy=group`, admin.cookie)).rows;
    expect(groups.find((row) => row.label === "Research")!.cost).toBeNull();
  });

  it("reads the last 30 days of the operator's time zone when the query names none", async () => {
    const { admin, adminId } = await install();
    const today = new Date().toISOString().slice(0, 10);
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    await call(adminId, daysAgo(29), "m", { input: 1, output: 0, cost: 1 });
    await call(adminId, daysAgo(30), "m", { input: 1, output: 0, cost: 1 });
    const days = await report("groupBy=day", admin.cookie);
    expect(days.rows).toHaveLength(30);
    expect(days.rows.at(-1)!.key).toBe(today);
    expect(days.rows[0]).toMatchObject({ key: daysAgo(29), calls: 1 });
    expect((await report(`groupBy=person&to=${daysAgo(29)}`, admin.cookie)).rows[0].calls).toBe(2);
  });

  it("answers 400 to a query it cannot read, saying what is wrong", async () => {
    const { admin } = await install();
    const refusals: Array<[string, RegExp]> = [
      ["from=2026-03-01&to=2026-03-02", /^groupBy: /],
      ["groupBy=team", /^groupBy: must be "person", "group", "model" or "day"/],
      ["groupBy=day&from=2026-02-30&to=2026-03-02", /^from: must be a day that exists/],
      ["groupBy=day&from=2026-03-01&to=03/02/2026", /^to: must be a day that exists/],
      ["groupBy=day&from=2026-03-02&to=2026-03-01", /^from: from must not come after to/],
      ["groupBy=day&from=2025-01-01&to=2026-01-02", /^to: the range must be at most 366 days/],
      ["groupBy=day&from=2026-03-01&to=2026-03-02&format=xlsx", /^format: /],
    ];
    for (const [query, message] of refusals) {
      const response = await get(query, admin.cookie);
      expect(response.status, query).toBe(400);
      const body = await response.json();
      expect(body.error.code, query).toBe("bad_request:validation");
      expect(body.error.message, query).toMatch(message);
    }
    // A year with its leap day is the most: 366 days.
    expect((await get("groupBy=day&from=2024-01-01&to=2024-12-31", admin.cookie)).status).toBe(200);
    expect((await report("groupBy=day&from=2024-01-01&to=2024-12-31", admin.cookie)).rows).toHaveLength(366);
  });

  it("answers 403 to a member and 401 to nobody", async () => {
    const { member } = await install();
    const forbidden = await get("groupBy=person", member.cookie);
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).error.code).toBe("forbidden:admin");
    const nobody = await get("groupBy=person", "");
    expect(nobody.status).toBe(401);
    expect((await nobody.json()).error.code).toBe("unauthorized:session");
    // Nobody learns which queries are good before signing in.
    expect((await get("groupBy=team", "")).status).toBe(401);
  });

  it("exports the same lines as CSV, a label that looks like a formula, with a comma and quotes, escaped", async () => {
    const { admin, memberId, guest } = await install();
    await call(memberId, "2026-03-01", "priced", { input: 7, output: 3, cost: 0.0000001 });
    await call(guest, "2026-03-01", "unpriced", { input: 1, output: 2, cost: null });
    const response = await get("from=2026-03-01&to=2026-03-31&groupBy=person&format=csv", admin.cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="threadline-spend-2026-03-01-to-2026-03-31-by-person.csv"');
    const lines = (await response.text()).split("\r\n");
    expect(lines[0]).toBe("key,label,calls,input_tokens,output_tokens,cost_usd,refused");
    const bob = lines.find((line) => line.startsWith(memberId))!;
    // The cell starts with ' (a spreadsheet shows it as text), is quoted for its comma, its quotes doubled.
    expect(bob).toMatch(new RegExp(`^${memberId},"'=HYPERLINK\\(""x""\\), Bob <bob-[^>]+@example\\.org>",1,7,3,0\\.0000001,0$`));
    // Unpriced: the cost cell is empty.
    expect(lines).toContain(`${guest},Guest ${guest.slice(0, 8)},1,1,2,,0`);
    expect(lines.at(-1)).toBe("");
    expect(lines).toHaveLength(4);
  });
});

describe("the spend report", () => {
  it("keeps the largest lines past its bound, and says it did", async () => {
    const owners = ["a", "b", "c"].map((letter) => `${letter}-${randomUUID()}`);
    for (const [i, owner] of owners.entries()) await call(owner, "2026-03-01", "m", { input: 1, output: 1, cost: i + 1 });
    const spend = new SpendReport({ pool: () => t.pool, people: () => ({ named: async () => new Map() }), timeZone: "UTC", maxRows: 2 });
    const range = { from: "2026-03-01", to: "2026-03-01" };
    const people = await spend.report(range, "person");
    expect(people.truncated).toBe(true);
    expect(people.rows.map((row) => row.key)).toEqual([owners[2], owners[1]]);
    expect((await spend.report(range, "model")).truncated).toBe(false);
  });

  it("tells the operator's day by their time zone", () => {
    const at = new Date("2026-03-01T23:30:00Z");
    const report = (timeZone: string) => new SpendReport({ pool: () => t.pool, people: () => ({ named: async () => new Map() }), timeZone, now: () => at });
    expect(report("UTC").today()).toBe("2026-03-01");
    expect(report("Europe/Paris").today()).toBe("2026-03-02");
    expect(report("America/Los_Angeles").today()).toBe("2026-03-01");
  });

  it("gives the Spend page its days, totals, top spenders and refused turns", async () => {
    const { adminId, memberId, guest } = await install();
    await call(adminId, "2026-03-01", "m", { input: 10, output: 10, cost: 1 });
    await call(memberId, "2026-03-02", "m", { input: 10, output: 10, cost: 3 });
    await call(guest, "2026-03-02", "m", { input: 500, output: 10, cost: 0 });
    await refusedTurn(guest, "2026-03-02", "m");
    await refusedTurn(guest, "2026-03-03", "m");
    const overview = await t.app.spendReport().overview({ from: "2026-03-01", to: "2026-03-03" });
    expect(overview.days.map((day) => day.key)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03"]);
    expect(overview.totals).toEqual({ calls: 3, inputTokens: 520, outputTokens: 30, cost: 4, refused: 2 });
    expect(overview.topSpenders.map((row) => row.key)).toEqual([memberId, adminId, guest]);
    expect(overview.refused).toEqual([expect.objectContaining({ key: guest, label: `Guest ${guest.slice(0, 8)}`, refused: 2 })]);
  });
});

import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import * as chat from "@/app/api/chat/route";
import * as meBudget from "@/app/api/me/budget/route";
import { Budgets } from "@/lib/budgets/budgets";
import { parseEnv } from "@/lib/settings";
import { chatTurn, request, visitor } from "../support/api";
import { integrationApp } from "../support/integration";
import { TEST_DATABASE_URL } from "../support/db";
import { signUp } from "../support/accounts";

// Budgets against the real provider code and the mock model server: each
// model call reserved on its owner's bill before it is made and settled to
// what the provider reported, a turn refused at the edge (429, the message
// and the notice stored), a tool loop ended mid-reply, every kind of call
// counted, and a period that renews at midnight where the operator is.

const MOCK = "openai-compatible:mock-model";

async function budgetOf(cookie: string) {
  return (await (await meBudget.GET(request("/api/me/budget", { cookie }), undefined)).json()).budget;
}

/** What the mock model server says each answer spent, in tokens (its own count, not the app's). */
const mockTokens = (usages: { inputTokens: number; outputTokens: number }[]) => usages.reduce((sum, u) => sum + u.inputTokens + u.outputTokens, 0);

describe.each(["inline", "inngest"] as const)("budgets (%s runtime)", (runtime) => {
  const limits = { RATE_LIMIT_CHAT_PER_MINUTE: "0", RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: "0" };
  const t = integrationApp({ runtime, titles: true, settings: { ...limits, BUDGET_DEFAULT: "2000 tokens/day", MAX_OUTPUT_TOKENS: "600" } });

  it("counts each call at what the provider reported, and refuses the turn that would pass the budget: 429, Retry-After, the message and the notice kept", async () => {
    const before = await budgetOf(t.me.cookie);
    expect(before).toMatchObject({ amount: 2000, unit: "tokens", period: "day", spent: 0, remaining: 2000 });
    expect(Date.parse(before.resetsAt)).toBeGreaterThan(Date.now());

    let refused: Awaited<ReturnType<typeof chatTurn>> | undefined;
    for (let turn = 0; turn < 10 && !refused; turn++) {
      // Each in a thread of its own: all the first call reads is known before the turn starts.
      const result = await chatTurn(chat, { message: { id: randomUUID(), content: `[[tokens:100]] turn ${turn}` } }, t.me.cookie);
      if (result.response.status === 429) refused = result;
      else expect(result.response.status).toBe(200);
      // What was spent never passes the budget, as the app counts it and as the model server does.
      const now = await budgetOf(t.me.cookie);
      expect(now.spent).toBeLessThanOrEqual(2000);
    }
    expect(refused, "a turn is refused before 10").toBeDefined();
    expect(refused!.error!.error.code).toBe("budget:exceeded");
    expect(refused!.error!.error.message).toMatch(/^You have used (\d[\d,]* tokens of )?your 2,000 tokens for today.*; it renews at midnight \(UTC\)\.$/);
    const wait = Number(refused!.response.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(24 * 3600);
    expect(mockTokens(t.mock.usages)).toBeLessThanOrEqual(2000);

    // The refused message is in the thread, answered by the notice, and no model was asked for it.
    const { rows } = await t.pool.query<{ kind: string; content: string }>(
      "SELECT m.kind, m.content FROM messages m WHERE m.thread_id = (SELECT id FROM threads WHERE owner = $1 ORDER BY created_at DESC LIMIT 1) ORDER BY m.seq DESC LIMIT 2",
      [t.me.id],
    );
    expect(rows.map((r) => r.kind)).toEqual(["notice", "user"]);
    expect(rows[0].content).toBe(refused!.error!.error.message);
    expect(t.mock.requests.some((body) => JSON.stringify(body).includes(rows[1].content))).toBe(false);
    // The admin's count of refused turns has it.
    const counted = await t.pool.query("SELECT sum(refused)::int AS refused FROM spend_days WHERE owner = $1", [t.me.id]);
    expect(counted.rows[0].refused).toBe(1);
  }, 60_000);

  it("settles each call to the provider's count: the bill's rows and the day's sums agree, titles and sub-agents included", async () => {
    await t.configure({ ...limits, BUDGET_DEFAULT: "100000 tokens/day" });
    const task = JSON.stringify({ agent: "Researcher", task: "find the time" });
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: `[[call:call_agent:${task}]] ask Researcher` } }, t.me.cookie);
    expect(turn.response.status).toBe(200);
    // The title is asked once the turn is over, and settled before its title is stored.
    await expect
      .poll(async () => (await t.pool.query("SELECT 1 FROM model_calls WHERE owner = $1 AND purpose = 'title' AND state = 'settled'", [t.me.id])).rowCount, { timeout: 10_000 })
      .toBe(1);
    const { rows } = await t.pool.query<{ purpose: string; state: string; input_tokens: string; output_tokens: string }>(
      "SELECT purpose, state, input_tokens, output_tokens FROM model_calls WHERE owner = $1 ORDER BY created_at",
      [t.me.id],
    );
    expect(new Set(rows.map((r) => r.purpose))).toEqual(new Set(["answer", "sub-agent", "title"]));
    expect(rows.every((r) => r.state === "settled")).toBe(true);
    // Settled to the provider's own count: the mock's usages, call for call.
    const billed = rows.reduce((sum, r) => sum + Number(r.input_tokens) + Number(r.output_tokens), 0);
    expect(billed).toBe(mockTokens(t.mock.usages));
    const days = await t.pool.query("SELECT sum(calls)::int AS calls, sum(input_tokens + output_tokens)::int AS tokens FROM spend_days WHERE owner = $1", [t.me.id]);
    expect(days.rows[0]).toEqual({ calls: rows.length, tokens: billed });
    expect((await budgetOf(t.me.cookie)).spent).toBe(billed);
  });

  it("counts a title cut off by its timeout at its reservation, for want of the provider's count", async () => {
    await t.configure({ ...limits, BUDGET_DEFAULT: "100000 tokens/day", TITLE_TIMEOUT_SECONDS: "1" });
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "name me slowly [[title-slow]]" } }, t.me.cookie);
    expect(turn.response.status).toBe(200);
    // The title's request reached the model server, and its second of waiting is over.
    await expect.poll(() => t.mock.requests.filter((body) => JSON.stringify(body).includes("name me slowly")).length, { timeout: 15_000 }).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { rows: states } = await t.pool.query("SELECT state FROM model_calls WHERE owner = $1 AND purpose = 'title'", [t.me.id]);
    expect(states).toEqual([{ state: "reserved" }]);
    const { rows } = await t.pool.query<{ reserved: string; counted: string }>(
      "SELECT reserved_input + reserved_output AS reserved, input_tokens + output_tokens AS counted FROM model_calls WHERE owner = $1 AND purpose = 'title'",
      [t.me.id],
    );
    expect(Number(rows[0].counted)).toBe(Number(rows[0].reserved));
    // It counts in what the person spent.
    const answers = await t.pool.query("SELECT sum(input_tokens + output_tokens)::int AS n FROM model_calls WHERE owner = $1", [t.me.id]);
    expect((await budgetOf(t.me.cookie)).spent).toBe(answers.rows[0].n);
  });

  it("ends a tool loop mid-reply when the budget has no room for the next call, and says why in the reply", async () => {
    // Each round of this reply calls the model again: Triage hands over, and Researcher calls a tool, again and again.
    const loop = '[[call:calculate:{"expression":"1+1"}]] [[call-again]] keep going';
    await t.configure({ ...limits, BUDGET_DEFAULT: "1000000 tokens/day", MAX_OUTPUT_TOKENS: "256" });
    const asked = t.mock.calls.answer;
    const unbounded = await chatTurn(chat, { message: { id: randomUUID(), content: loop } }, t.me.cookie);
    expect(unbounded.response.status).toBe(200);
    const callsUnbounded = t.mock.calls.answer - asked;
    expect(callsUnbounded).toBeGreaterThan(2);
    const { rows: reserved } = await t.pool.query<{ reserved: string; spent: string }>(
      "SELECT reserved_input + reserved_output AS reserved, input_tokens + output_tokens AS spent FROM model_calls WHERE owner = $1 AND purpose = 'answer' ORDER BY created_at LIMIT 1",
      [t.me.id],
    );
    // Room for the first call's reservation and a little more: the same reply, asked again by someone new, makes that one call only.
    const budget = Number(reserved[0].reserved) + 50;
    await t.configure({ ...limits, BUDGET_DEFAULT: `${budget} tokens/day`, MAX_OUTPUT_TOKENS: "256" });
    const someoneElse = await visitor();
    const askedBefore = t.mock.calls.answer;
    const cut = await chatTurn(chat, { message: { id: randomUUID(), content: loop } }, someoneElse.cookie);
    expect(cut.response.status).toBe(200);
    expect(t.mock.calls.answer - askedBefore).toBe(1);
    const notice = cut.chunks.find((c) => c.type === "data-budget") as { data: { text: string } } | undefined;
    expect(notice?.data.text).toMatch(/what is left is too little for a reply; it renews at midnight \(UTC\)\.$/);
    expect(cut.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const { rows } = await t.pool.query<{ kind: string }>("SELECT kind FROM messages WHERE thread_id = $1 AND kind <> 'user' ORDER BY seq", [cut.threadId]);
    expect(rows.map((r) => r.kind)).toEqual(["handoff", "notice"]);
    expect((await budgetOf(someoneElse.cookie)).spent).toBeLessThanOrEqual(budget);
  });

  it("refuses a model with no price under a dollar budget, saying why, and counts tokens under a token budget", async () => {
    await t.configure({ ...limits, BUDGET_DEFAULT: "$2/day" });
    const asked = t.mock.calls.answer;
    const refused = await chatTurn(chat, { message: { id: randomUUID(), content: "hello" } }, t.me.cookie);
    expect(refused.response.status).toBe(429);
    expect(refused.error!.error.code).toBe("budget:unpriced");
    expect(refused.error!.error.message).toContain(`the model ${MOCK} has no price here`);
    expect(t.mock.calls.answer).toBe(asked);

    await t.configure({ ...limits, BUDGET_DEFAULT: "$2/day", MODEL_PRICES: JSON.stringify({ [MOCK]: { input: 1000, output: 2000 } }) });
    const priced = await chatTurn(chat, { message: { id: randomUUID(), content: "hello again" } }, t.me.cookie);
    expect(priced.response.status).toBe(200);
    // Its title is asked once the turn is over, and is spent too.
    await expect.poll(() => t.mock.usages.some((u) => u.kind === "title"), { timeout: 10_000 }).toBe(true);
    expect(await budgetOf(t.me.cookie)).toMatchObject({ amount: 2, unit: "usd" });
    // At $1000 and $2000 a million tokens, once the title's settlement has landed.
    const cost = t.mock.usages.reduce((sum, u) => sum + (u.inputTokens * 1000 + u.outputTokens * 2000) / 1_000_000, 0);
    await expect.poll(async () => Math.round((await budgetOf(t.me.cookie)).spent * 1e9), { timeout: 10_000 }).toBe(Math.round(cost * 1e9));
  });
});

describe("a budget's period", () => {
  const t = integrationApp({ model: "offline" });

  it("renews at midnight, on Monday and on the 1st in the operator's time zone", async () => {
    const owner = `period-${randomUUID()}`;
    const settings = parseEnv({ DATABASE_URL: "postgres://unused", BUDGET_DEFAULT: "1000 tokens/day", BUDGET_TIME_ZONE: "Europe/Paris" });
    let now = new Date("2026-03-10T22:30:00Z"); // 23:30 in Paris, a Tuesday
    const budgets = new Budgets({ pool: () => t.pool as never, settings, unknownIsGuest: false, now: () => now });
    const spend = (tokens: number) =>
      t.pool.query("SELECT refused FROM threadline_reserve_call($1, $2, false, $3, 'Europe/Paris', $4, NULL, NULL, 'answer', NULL, 'test:model', $5, 0, 0, 0, 0)", [
        randomUUID(),
        owner,
        now,
        JSON.stringify(settings.BUDGET_DEFAULT),
        tokens,
      ]);
    await spend(700);
    expect(await budgets.status(owner)).toMatchObject({ spent: 700, remaining: 300, resetsAt: "2026-03-10T23:00:00.000Z" });
    // Five minutes later in UTC, but a new day in Paris.
    now = new Date("2026-03-10T23:05:00Z");
    expect(await budgets.status(owner)).toMatchObject({ spent: 0, remaining: 1000, resetsAt: "2026-03-11T23:00:00.000Z" });

    const weekly = parseEnv({ DATABASE_URL: "postgres://unused", BUDGET_DEFAULT: "1000 tokens/week", BUDGET_TIME_ZONE: "Europe/Paris" });
    const byWeek = new Budgets({ pool: () => t.pool as never, settings: weekly, unknownIsGuest: false, now: () => now });
    // Tuesday's spend and Wednesday's count in the week that ends on Sunday night, Paris time.
    expect(await byWeek.status(owner)).toMatchObject({ spent: 700, resetsAt: "2026-03-15T23:00:00.000Z" });
    const monthly = parseEnv({ DATABASE_URL: "postgres://unused", BUDGET_DEFAULT: "$5/month", BUDGET_TIME_ZONE: "America/New_York" });
    const byMonth = new Budgets({ pool: () => t.pool as never, settings: monthly, unknownIsGuest: false, now: () => now });
    expect(await byMonth.status(owner)).toMatchObject({ unit: "usd", resetsAt: "2026-04-01T04:00:00.000Z" });
  });
});

// The embedded database is one connection: nothing reserves at once there.
describe.skipIf(inject("embeddedDatabase"))("reservations at once", () => {
  const t = integrationApp({ model: "offline" });

  it("from twenty connections at once, each held open a while, never reserve past the budget together", async () => {
    const owner = `at-once-${randomUUID()}`;
    const budget = JSON.stringify({ amount: 1000, unit: "tokens", period: "day" });
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 20 });
    const clients = await Promise.all(Array.from({ length: 20 }, () => pool.connect()));
    try {
      // Each in a transaction that stays open after its reservation, as a slow server's would: the next must wait for it, or it would not see it.
      const outcomes = await Promise.all(
        clients.map(async (client) => {
          await client.query("BEGIN");
          const { rows } = await client.query<{ refused: string | null; output_tokens: string }>(
            "SELECT refused, output_tokens FROM threadline_reserve_call($1, $2, false, now(), 'UTC', $3, NULL, NULL, 'answer', NULL, 'test:model', 100, 200, 200, NULL, NULL)",
            [randomUUID(), owner, budget],
          );
          await client.query("SELECT pg_sleep(0.1)");
          await client.query("COMMIT");
          return rows[0];
        }),
      );
      // 300 tokens each: three fit in 1000, and the fourth would pass it.
      expect(outcomes.filter((o) => o.refused === null)).toHaveLength(3);
      expect(outcomes.filter((o) => o.refused === "exceeded")).toHaveLength(17);
      const { rows } = await t.pool.query("SELECT sum(input_tokens + output_tokens)::int AS reserved FROM spend_days WHERE owner = $1", [owner]);
      expect(rows[0].reserved).toBe(900);
    } finally {
      for (const client of clients) client.release();
      await pool.end();
    }
  });
});

describe("guests' budgets", () => {
  const t = integrationApp({
    settings: { AUTH_MODE: "accounts", AUTH_GUESTS: "1", AUTH_SIGNUP: "open", BUDGET_GUESTS: "5000 tokens/day", BUDGET_DEFAULT: "$1/day", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0", MODEL_PRICES: JSON.stringify({ [MOCK]: { input: 1, output: 2 } }) },
  });
  const email = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.org`;

  it("binds a guest by the guests' budget, an admin by none, and moves a guest's spend to the account they make", async () => {
    await t.pool.query("TRUNCATE auth_users, auth_first_admin CASCADE");
    const admin = await signUp(email("admin"));
    expect(await budgetOf(admin.cookie)).toBeNull();

    const guest = await visitor();
    expect(await budgetOf(guest.cookie)).toMatchObject({ amount: 5000, unit: "tokens", spent: 0 });
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "a guest asks" } }, guest.cookie);
    expect(turn.response.status).toBe(200);
    const spentAsGuest = (await budgetOf(guest.cookie)).spent;
    expect(spentAsGuest).toBeGreaterThan(0);

    // Signed up, the guest is a person bound by the default budget, in dollars: what they spent as a guest counts there.
    const account = await signUp(email("guest"), { cookie: guest.cookie });
    expect(account.status).toBe(200);
    const asPerson = await budgetOf(account.cookie);
    expect(asPerson).toMatchObject({ amount: 1, unit: "usd" });
    const usage = t.mock.usages.filter((u) => u.kind === "answer");
    expect(asPerson.spent).toBeCloseTo(usage.reduce((sum, u) => sum + (u.inputTokens * 1 + u.outputTokens * 2) / 1_000_000, 0), 9);
    const moved = await t.pool.query("SELECT count(*)::int AS n FROM model_calls WHERE owner = $1", [guest.id]);
    expect(moved.rows[0].n).toBe(0);
  });
});

import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { appServers } from "../support/app-servers";
import { blockPool } from "../support/db";
import { visit } from "../support/fresh-copy";
import { send } from "../support/production-app";

// One person's budget on two app servers (`npm start`, the real provider
// code, the mock model): twenty turns sent at once, half to each server, at
// the edge of the budget. Every call is reserved against the budget before
// it is made, in one statement that takes turns with the person's other
// reservations on either server; so however they interleave, what the model
// server counts stays within the budget but for at most one call's
// reservation. Without that, twenty replies of 250 tokens would spend more
// than the budget and a reservation together.
// The embedded database is one process's by design: skipped there.

const BUDGET = 3000;

describe.skipIf(inject("embeddedDatabase"))("a budget on two app servers", () => {
  const db = blockPool();
  const servers = appServers({
    count: 2,
    env: { BUDGET_DEFAULT: `${BUDGET} tokens/day`, MAX_OUTPUT_TOKENS: "256", RATE_LIMIT_CHAT_PER_MINUTE: "0", RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: "0" },
  });

  it("twenty turns at once, half on each server, pass the budget by at most one call's reservation, counted at the model server", { timeout: 120_000 }, async () => {
    const { apps, mock } = servers();
    const cookie = await visit(apps[0].base);
    const counted = mock.usages.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(apps[i % 2].port, "POST", "/api/chat", { cookie, json: { message: { id: randomUUID(), content: `[[tokens:250]] turn ${i}` } } }),
      ),
    );
    const bodies = await Promise.all(answers.map((answer) => answer.text()));
    const refusedBefore = answers.filter((answer) => answer.status === 429);
    for (const [i, answer] of refusedBefore.entries()) expect(JSON.parse(await answer.text()).error.code, String(i)).toBe("budget:exceeded");
    const started = answers.flatMap((answer, i) => (answer.status === 200 ? [{ answer, body: bodies[i] }] : []));
    expect(started.length + refusedBefore.length).toBe(20);
    const endedByBudget = started.filter(({ body }) => body.includes('"type":"data-budget"'));
    const answered = started.filter(({ body }) => !body.includes('"type":"data-budget"'));
    // At the edge: some turns are answered, the rest refused, before they start or at their one call.
    expect(answered.length).toBeGreaterThan(0);
    expect(refusedBefore.length + endedByBudget.length).toBeGreaterThan(0);

    const spentAtModel = mock.usages.slice(counted).reduce((sum, u) => sum + u.inputTokens + u.outputTokens, 0);
    const threads = started.map(({ answer }) => String(answer.headers["x-thread-id"]));
    const { rows } = await db.query<{ largest: string; spent: string }>(
      "SELECT max(reserved_input + reserved_output) AS largest, sum(input_tokens + output_tokens) AS spent FROM model_calls WHERE thread_id = ANY($1::uuid[])",
      [threads],
    );
    expect(spentAtModel).toBeGreaterThan(0);
    expect(spentAtModel).toBeLessThanOrEqual(BUDGET + Number(rows[0].largest));
    // The app's own count is the model server's, call for call, and within the budget.
    expect(Number(rows[0].spent)).toBe(spentAtModel);
    const budget = JSON.parse(await (await send(apps[1].port, "GET", "/api/me/budget", { cookie })).text()).budget;
    expect(budget).toMatchObject({ amount: BUDGET, unit: "tokens", spent: spentAtModel });
    expect(budget.spent).toBeLessThanOrEqual(BUDGET);
  });

  it("a call cut off by its server's death (SIGKILL) stays on the bill at its reservation", { timeout: 120_000 }, async () => {
    const [a, b] = servers().apps;
    const cookie = await visit(b.base);
    const running = await send(a.port, "POST", "/api/chat", { cookie, json: { message: { id: randomUUID(), content: "[[slow]] a reply its server dies in" } } });
    expect(running.status).toBe(200);
    const threadId = String(running.headers["x-thread-id"]);
    await running.stream.words(3);
    process.kill(-a.child.pid!, "SIGKILL");
    await a.exited;
    const { rows } = await db.query<{ state: string; reserved: string; counted: string }>(
      "SELECT state, reserved_input + reserved_output AS reserved, input_tokens + output_tokens AS counted FROM model_calls WHERE thread_id = $1 ORDER BY created_at LIMIT 1",
      [threadId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].state).toBe("reserved");
    expect(Number(rows[0].counted)).toBe(Number(rows[0].reserved));
    // The other server counts it in what the person spent.
    const budget = JSON.parse(await (await send(b.port, "GET", "/api/me/budget", { cookie })).text()).budget;
    expect(budget.spent).toBeGreaterThanOrEqual(Number(rows[0].reserved));
  });
});

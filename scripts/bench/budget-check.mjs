// What budgets add to a turn (lib/budgets/): the check before it starts
// (threadline_budget_status), and each model call's reservation and
// settlement (threadline_reserve_call, threadline_settle_call), timed on one
// connection of the bench's database as a server makes them, for a person
// with a month of spend behind them (31 days of three models in spend_days,
// and their calls in model_calls) under a monthly dollar budget: each is one
// statement, one round trip. Nothing here asserts a figure.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { median, percentile } from "./turns.mjs";

const BUDGET = JSON.stringify({ amount: 1_000_000, unit: "usd", period: "month" });

export async function budgetCheck(db, { iterations, callsBehind }) {
  const owner = `bench-budget-${randomUUID()}`;
  // A month of calls behind them, and the days' sums those calls make.
  await db.query(
    `INSERT INTO model_calls (id, owner, purpose, model, day, state, reserved_input, reserved_output, input_tokens, output_tokens, cost, created_at)
     SELECT gen_random_uuid(), $1, 'answer', 'bench:model-' || (i % 3), (now() - (i % 31) * interval '1 day')::date, 'settled', 900, 1000, 800, 200, 0.001, now() - (i % 31) * interval '1 day'
       FROM generate_series(1, $2) AS i`,
    [owner, callsBehind],
  );
  await db.query(
    `INSERT INTO spend_days (owner, day, model, calls, input_tokens, output_tokens, cost)
     SELECT owner, day, model, count(*), sum(input_tokens), sum(output_tokens), sum(cost) FROM model_calls WHERE owner = $1 GROUP BY owner, day, model`,
    [owner],
  );
  const args = [false, new Date(), "UTC", BUDGET, null];
  const time = async (work) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };
  for (let i = 0; i < 20; i++) await db.query("SELECT * FROM threadline_budget_status($1, $2, $3, $4, $5, $6)", [owner, ...args]);
  const status = [];
  const reserve = [];
  const settle = [];
  for (let i = 0; i < iterations; i++) {
    const id = randomUUID();
    status.push(await time(() => db.query("SELECT * FROM threadline_budget_status($1, $2, $3, $4, $5, $6)", [owner, ...args])));
    reserve.push(
      await time(() =>
        db.query("SELECT * FROM threadline_reserve_call($1, $2, $3, $4, $5, $6, $7, NULL, 'answer', 'Triage', 'bench:model-0', 900, 16384, 256, 0.0009, 0.000002)", [id, owner, ...args]),
      ),
    );
    settle.push(await time(() => db.query("SELECT threadline_settle_call($1, 850, 120, 0, 0, 0.00109, true, now())", [id])));
  }
  const figures = (ms) => ({ p50: round(median(ms)), p95: round(percentile(ms, 95)) });
  const result = { callsBehind, iterations, status: figures(status), reserve: figures(reserve), settle: figures(settle) };
  result.perTurnMs = round(result.status.p50 + result.reserve.p50 + result.settle.p50);
  await db.query("DELETE FROM spend_days WHERE owner = $1", [owner]);
  await db.query("DELETE FROM model_calls WHERE owner = $1", [owner]);
  return result;
}

const round = (ms) => Math.round(ms * 1000) / 1000;

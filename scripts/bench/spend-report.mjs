// The admin's "who spent what" over a busy install's year: a database of its
// own filled in SQL with a million model calls (200 people, a tenth of them
// guests, in five groups, on five models, one without a price, over 365
// days, a few heavy users and many light ones) and their spend_days rollup,
// summed from the calls as the bill's functions keep it; then the report
// itself (lib/budgets/spend-report.ts, loaded with jiti as the window read
// is) over the last 30 and the last 365 days, by each grouping and the Spend
// page's overview, a few runs each, with the plan of the year by person.
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { median, percentile } from "./turns.mjs";

const round = (n, digits = 0) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);

/** The last day of the filled year: fixed, so every run reads the same rows. */
const LAST_DAY = "2026-06-30";
const GROUPS = 5;
/** Each model's share of the calls and its price in dollars a million tokens in and out (null: no price). */
const MODELS = [
  ["openai:gpt-4.1-mini", 0.5, 0.4, 1.6],
  ["anthropic:claude-haiku-4-5", 0.2, 1, 5],
  ["openai:gpt-4.1", 0.15, 2, 8],
  ["anthropic:claude-sonnet-4-5", 0.1, 3, 15],
  ["openai-compatible:llama3.2", 0.05, null, null],
];

/** Fills the bench's database: people, groups, the calls and their days. */
async function fill(db, { people, calls }) {
  await db.query("SELECT setseed(0.42)");
  // People: one in ten a guest (no account); the rest accounts, each in a group, some in two, every tenth in none.
  await db.query(
    `CREATE TEMP TABLE bench_owners AS
     SELECT n, CASE WHEN n % 10 = 9 THEN 'guest-' ELSE 'person-' END || n || '-' || md5(n::text) AS owner
       FROM generate_series(0, $1::int - 1) n`,
    [people],
  );
  await db.query(
    `INSERT INTO auth_users (id, name, email, email_verified)
     SELECT owner, 'Person ' || n, 'person' || n || '@example.org', true FROM bench_owners WHERE owner LIKE 'person-%'`,
  );
  await db.query(`INSERT INTO budget_groups (id, name) SELECT gen_random_uuid(), 'Group ' || g FROM generate_series(1, ${GROUPS}) g`);
  await db.query(
    `INSERT INTO budget_group_members (group_id, person)
     SELECT g.id, o.owner FROM bench_owners o JOIN budget_groups g ON g.name = 'Group ' || (1 + o.n % ${GROUPS})
      WHERE o.owner LIKE 'person-%' AND o.n % 10 <> 0
     UNION ALL
     SELECT g.id, o.owner FROM bench_owners o JOIN budget_groups g ON g.name = 'Group ' || (1 + (o.n + 1) % ${GROUPS})
      WHERE o.owner LIKE 'person-%' AND o.n % 7 = 0 AND o.n % 10 <> 0`,
  );
  let lo = 0;
  const models = MODELS.map(([model, share, input, output]) => {
    const row = `(${pg.escapeLiteral(model)}, ${lo}, ${lo + share}, ${input ?? "NULL"}::numeric, ${output ?? "NULL"}::numeric)`;
    lo += share;
    return row;
  });
  await db.query(`CREATE TEMP TABLE bench_models (model, lo, hi, price_in, price_out) AS VALUES ${models.join(", ")}`);
  // Heavy users first: the square of a uniform draw puts most calls on the first few people.
  await db.query(
    `INSERT INTO model_calls (id, owner, purpose, agent, model, day, state, reserved_input, reserved_output, input_tokens, output_tokens, cost, created_at, settled_at)
     SELECT gen_random_uuid(), o.owner, 'answer', 'Triage', m.model, r.day, 'settled', r.input, 4096, r.input, r.output,
            round((r.input * m.price_in + r.output * m.price_out) / 1000000, 9),
            r.day + r.second * interval '1 second', r.day + r.second * interval '1 second'
       FROM (SELECT floor(power(random(), 2) * $1::int)::int AS who, random() AS pick,
                    $3::date - floor(random() * 365)::int AS day, floor(random() * 86399)::int AS second,
                    200 + floor(random() * 4000)::bigint AS input, 20 + floor(random() * 800)::bigint AS output
               FROM generate_series(1, $2::int)) r
       JOIN bench_owners o ON o.n = r.who
       JOIN bench_models m ON r.pick >= m.lo AND r.pick < m.hi`,
    [people, calls, LAST_DAY],
  );
  // The rollup as the bill's functions keep it: a day's cost null while none of its calls had a price.
  await db.query(
    `INSERT INTO spend_days (owner, day, model, calls, input_tokens, output_tokens, cost, refused)
     SELECT owner, day, model, count(*), sum(input_tokens), sum(output_tokens), sum(cost), 0 FROM model_calls GROUP BY owner, day, model`,
  );
  // A budget refused a turn here and there.
  await db.query("UPDATE spend_days SET refused = 1 + floor(random() * 3) WHERE random() < 0.01");
  // As autovacuum leaves an aged table: the visibility map set, so the day index answers alone.
  await db.query("VACUUM (ANALYZE) spend_days");
  await db.query("ANALYZE budget_group_members");
  const { rows } = await db.query("SELECT (SELECT count(*) FROM model_calls)::int AS calls, (SELECT count(*) FROM spend_days)::int AS days");
  return rows[0];
}

/** How the year by person is read: the scan the plan uses on spend_days, its heap fetches, the time it took. */
async function plan(db, sql, params) {
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, params);
  const root = rows[0]["QUERY PLAN"][0];
  const scans = [];
  const walk = (node) => {
    if (node["Relation Name"] === "spend_days") scans.push({ scan: node["Node Type"], index: node["Index Name"] ?? null, heapFetches: node["Heap Fetches"] ?? null });
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(root.Plan);
  return { scans, executionMs: round(root["Execution Time"], 1) };
}

/**
 * Fills a throwaway database of its own and times the report on it.
 * `throwawayDatabase(suffix)`: the bench's (scripts/bench/servers.mjs).
 */
export async function spendReportBench({ root, quick, log, throwawayDatabase }) {
  const size = quick ? { people: 20, calls: 10_000 } : { people: 200, calls: 1_000_000 };
  const runs = quick ? 2 : 11;
  const database = await throwawayDatabase("_spend");
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    const started = performance.now();
    const filled = await fill(db, size);
    const fillSeconds = round((performance.now() - started) / 1000, 1);
    log(`spend report: ${filled.calls} calls, ${filled.days} spend_days rows filled in ${fillSeconds} s`);
    const { createJiti } = await import("jiti");
    const jiti = createJiti(import.meta.url, { alias: { "@": root, "server-only": path.join(root, "tests/support/server-only.ts") } });
    const { SpendReport, SPEND_STATEMENTS } = await jiti.import(path.join(root, "lib/budgets/spend-report.ts"));
    const { People } = await jiti.import(path.join(root, "lib/accounts/people.ts"));
    // The report's queries on the bench's one connection, as a pool's would run them one after another.
    const people = new People(db);
    const report = new SpendReport({ pool: () => db, people: () => people, timeZone: "UTC", now: () => new Date(`${LAST_DAY}T12:00:00Z`) });
    const ranges = { "30 days": 30, "365 days": 365 };
    const measured = [];
    for (const [name, days] of Object.entries(ranges)) {
      const from = new Date(Date.parse(`${LAST_DAY}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
      const range = { from, to: LAST_DAY };
      const what = [
        ...["person", "group", "model", "day"].map((groupBy) => [`by ${groupBy}`, () => report.report(range, groupBy)]),
        ["the page's overview (days, top spenders, refused)", () => report.overview(range)],
      ];
      for (const [label, run] of what) {
        const lines = (await run()).rows?.length; // a warm-up run, uncounted
        const times = [];
        for (let i = 0; i < runs; i++) {
          const at = performance.now();
          await run();
          times.push(performance.now() - at);
        }
        measured.push({ range: name, what: label, lines: lines ?? null, p50: round(median(times), 1), p95: round(percentile(times, 95), 1) });
      }
    }
    const yearPlan = await plan(db, SPEND_STATEMENTS.person, [
      new Date(Date.parse(`${LAST_DAY}T00:00:00Z`) - 364 * 86_400_000).toISOString().slice(0, 10),
      LAST_DAY,
      5001,
    ]);
    for (const m of measured) log(`spend report, ${m.range} ${m.what}: p50 ${m.p50} ms, p95 ${m.p95} ms`);
    log(`spend report, the year by person reads spend_days by ${yearPlan.scans.map((s) => `${s.scan}${s.index ? ` on ${s.index}` : ""}`).join(", ")}`);
    return { database: database.kind, ...size, rows: filled, fillSeconds, runs, measured, yearPlan };
  } finally {
    await db.end();
    await database.drop();
  }
}

export const SPEND_HEADING = "## Who spent what: the admin's report";

/** The report's times, as results.md's section. */
export function spendSection(spend) {
  if (!spend) return [];
  const scans = spend.yearPlan.scans.map((s) => `${s.scan}${s.index ? ` using ${s.index}` : ""}${s.heapFetches === null ? "" : ` (${s.heapFetches} heap fetches)`}`);
  return [
    SPEND_HEADING,
    "",
    `${spend.rows.calls.toLocaleString("en-US")} model calls (${spend.people} people, ${MODELS.length} models, 365 days) and their ${spend.rows.days.toLocaleString("en-US")} spend_days rows, filled in ${spend.fillSeconds} s (database: ${spend.database}); each figure the p50 / p95 of ${spend.runs} runs after one uncounted:`,
    "",
    "| range | report | lines | p50 (ms) | p95 (ms) |",
    "|---|---|---|---|---|",
    ...spend.measured.map((m) => `| ${m.range} | ${m.what} | ${m.lines ?? "n/a"} | ${m.p50} | ${m.p95} |`),
    "",
    `The year by person reads spend_days by ${scans.join(", ")}; ${spend.yearPlan.executionMs} ms under EXPLAIN ANALYZE.`,
    "",
  ];
}

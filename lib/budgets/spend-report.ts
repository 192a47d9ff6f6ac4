import "server-only";
import type pg from "pg";
import {
  MAX_USAGE_ROWS,
  type SpendOverview,
  type UsageGrouping,
  type UsageLine,
  type UsageReport,
} from "@/lib/protocol/budgets";

// Who spent what, for the admins: spend_days (the bill summed by owner, day
// and model) read over a range of the operator's days and summed by person,
// group, model or day. A line's cost is null when a call among its rows had
// no price: a sum of the priced ones alone would read as the whole.

/** The accounts' names, by owner id (lib/accounts/people.ts): only the accounts wing reads them. */
export interface PeopleNames {
  named(ids: readonly string[]): Promise<Map<string, { name: string; email: string }>>;
}

export interface SpendReportOptions {
  pool: () => pg.Pool;
  people: () => PeopleNames;
  /** The operator's time zone: its midnight starts a day. */
  timeZone: string;
  now?: () => Date;
  /** The most lines a report holds (a test sets fewer). */
  maxRows?: number;
}

/** A range of the operator's days, both ends counted (YYYY-MM-DD). */
export interface DayRange {
  from: string;
  to: string;
}

interface SumsRow {
  key: string;
  label: string | null;
  calls: string;
  input_tokens: string;
  output_tokens: string;
  /** The priced calls' cost. */
  priced: string | null;
  /** Whether a call among them had no price (a row with calls and a null cost). */
  unpriced: boolean | null;
  refused: string;
}

/** A key's sums over the range's rows (`s`); refused-only rows (no calls) leave the cost alone. */
const SUMS = `coalesce(sum(s.calls), 0) AS calls, coalesce(sum(s.input_tokens), 0) AS input_tokens,
  coalesce(sum(s.output_tokens), 0) AS output_tokens, sum(s.cost) AS priced,
  coalesce(bool_or(s.cost IS NULL AND s.calls > 0), false) AS unpriced, coalesce(sum(s.refused), 0) AS refused`;

/** The same sums over rows that are sums already (a person's, within a group). */
const RESUMS = `sum(p.calls) AS calls, sum(p.input_tokens) AS input_tokens, sum(p.output_tokens) AS output_tokens,
  sum(p.priced) AS priced, bool_or(p.unpriced) AS unpriced, sum(p.refused) AS refused`;

const IN_RANGE = "s.day BETWEEN $1::date AND $2::date";

/** Most spent first: the priced cost, then tokens, then the key (equal lines in a stable order). */
const LARGEST = "ORDER BY coalesce(sum(s.cost), 0) DESC, sum(s.input_tokens + s.output_tokens) DESC, key";

/**
 * The statement for each grouping: $1 and $2 the range, $3 the most lines
 * (exported for the bench, which explains them). Each reads the range's
 * rows alone through spend_days_day_idx, which holds every column they sum
 * (an index-only scan), unless the range is most of the table, which a
 * sequential scan reads faster (docs/performance.md).
 */
export const SPEND_STATEMENTS: Record<UsageGrouping, string> = {
  person: `SELECT s.owner AS key, NULL AS label, ${SUMS} FROM spend_days s WHERE ${IN_RANGE}
     GROUP BY s.owner ${LARGEST} LIMIT $3`,
  // A person counts in each of their groups; someone in none (a guest among them) under "none".
  group: `WITH p AS (
      SELECT s.owner, ${SUMS} FROM spend_days s WHERE ${IN_RANGE} GROUP BY s.owner
    )
    SELECT coalesce(g.id::text, 'none') AS key, coalesce(g.name, 'No group') AS label, ${RESUMS}
      FROM p LEFT JOIN budget_group_members m ON m.person = p.owner LEFT JOIN budget_groups g ON g.id = m.group_id
     GROUP BY g.id, g.name
     ORDER BY coalesce(sum(p.priced), 0) DESC, sum(p.input_tokens + p.output_tokens) DESC, key LIMIT $3`,
  model: `SELECT s.model AS key, s.model AS label, ${SUMS} FROM spend_days s WHERE ${IN_RANGE}
     GROUP BY s.model ${LARGEST} LIMIT $3`,
  // Every day of the range, one with no spend a line of zeros: a chart of the days leaves no gap.
  day: `SELECT to_char(d, 'YYYY-MM-DD') AS key, NULL AS label, coalesce(x.calls, 0) AS calls,
           coalesce(x.input_tokens, 0) AS input_tokens, coalesce(x.output_tokens, 0) AS output_tokens,
           x.priced, coalesce(x.unpriced, false) AS unpriced, coalesce(x.refused, 0) AS refused
      FROM generate_series($1::date, $2::date, interval '1 day') d
      LEFT JOIN (SELECT s.day, ${SUMS} FROM spend_days s WHERE ${IN_RANGE} GROUP BY s.day) x ON x.day = d::date
     ORDER BY d LIMIT $3`,
};

/** The people whose turns a budget refused, most first. */
const REFUSED = `SELECT s.owner AS key, NULL AS label, ${SUMS} FROM spend_days s WHERE ${IN_RANGE}
  GROUP BY s.owner HAVING sum(s.refused) > 0 ORDER BY sum(s.refused) DESC, s.owner LIMIT $3`;

/** The ten who spent most. */
const TOP_SPENDERS = 10;

const line = (row: SumsRow): UsageLine => ({
  key: row.key,
  label: row.label ?? row.key,
  calls: Number(row.calls),
  inputTokens: Number(row.input_tokens),
  outputTokens: Number(row.output_tokens),
  cost: row.unpriced ? null : Number(row.priced ?? 0),
  refused: Number(row.refused),
});

/** What someone with no account is called: a guest, by the start of their id. */
export const guestLabel = (owner: string) => `Guest ${owner.slice(0, 8)}`;

export class SpendReport {
  private readonly now: () => Date;
  private readonly maxRows: number;

  constructor(private readonly options: SpendReportOptions) {
    this.now = options.now ?? (() => new Date());
    this.maxRows = options.maxRows ?? MAX_USAGE_ROWS;
  }

  /** The operator's time zone, whose days the report counts. */
  get timeZone(): string {
    return this.options.timeZone;
  }

  /** Today in the operator's time zone (YYYY-MM-DD). */
  today(): string {
    const parts = new Intl.DateTimeFormat("en-US", { timeZone: this.options.timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(this.now());
    const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)!.value;
    return `${part("year")}-${part("month")}-${part("day")}`;
  }

  /** The lines of `range` by `groupBy`: the largest first, days in order. */
  async report(range: DayRange, groupBy: UsageGrouping): Promise<UsageReport> {
    const rows = await this.lines(SPEND_STATEMENTS[groupBy], range, this.maxRows + 1);
    const truncated = rows.length > this.maxRows;
    const kept = truncated ? rows.slice(0, this.maxRows) : rows;
    return { rows: groupBy === "person" ? await this.named(kept) : kept, truncated };
  }

  /** What the Spend page shows of `range` beside its table. */
  async overview(range: DayRange): Promise<SpendOverview> {
    const [days, top, refused] = await Promise.all([
      this.lines(SPEND_STATEMENTS.day, range, this.maxRows),
      this.lines(SPEND_STATEMENTS.person, range, TOP_SPENDERS),
      this.lines(REFUSED, range, TOP_SPENDERS),
    ]);
    const [topSpenders, refusedBy] = await Promise.all([this.named(top), this.named(refused)]);
    const totals = days.reduce(
      (sum, day) => ({
        calls: sum.calls + day.calls,
        inputTokens: sum.inputTokens + day.inputTokens,
        outputTokens: sum.outputTokens + day.outputTokens,
        cost: sum.cost === null || day.cost === null ? null : sum.cost + day.cost,
        refused: sum.refused + day.refused,
      }),
      { calls: 0, inputTokens: 0, outputTokens: 0, cost: 0 as number | null, refused: 0 },
    );
    return { ...range, days, totals, topSpenders, refused: refusedBy };
  }

  private async lines(sql: string, range: DayRange, limit: number): Promise<UsageLine[]> {
    const { rows } = await this.options.pool().query<SumsRow>(sql, [range.from, range.to, limit]);
    return rows.map(line);
  }

  /** People's lines labelled with their name and email; someone with no account is a guest. */
  private async named(lines: UsageLine[]): Promise<UsageLine[]> {
    const names = await this.options.people().named(lines.map((l) => l.key));
    return lines.map((l) => {
      const person = names.get(l.key);
      return { ...l, label: person ? (person.name ? `${person.name} <${person.email}>` : person.email) : guestLabel(l.key) };
    });
  }
}

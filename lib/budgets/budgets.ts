import "server-only";
import type pg from "pg";
import { AppError } from "@threadline/history/errors";
import type { Budget, BudgetList, BudgetScope, BudgetStatus } from "@/lib/protocol/budgets";
import type { BudgetsSettings } from "./settings";
import { costOf, type Price } from "@/lib/model/model-prices";

// What each person may spend on model calls, and what they spent
// (threadline_budget_status and the budget tables, packages/history/db/).
// Every model call is reserved on its owner's bill before it is made and
// settled after (./spend-gate.ts); this is the part the routes read and the
// admins set.

/** The status row threadline_budget_status and threadline_reserve_call answer. */
export interface StatusRow {
  scope: string | null;
  amount: string | null;
  unit: Budget["unit"] | null;
  period: Budget["period"] | null;
  spent_usd: string | null;
  spent_tokens: string | null;
  resets_at: Date | null;
}

export interface BudgetsOptions {
  pool: () => pg.Pool;
  settings: BudgetsSettings;
  /** Whether an owner with no account is a guest (accounts mode), rather than the install's one person (open mode). */
  unknownIsGuest: boolean;
  /** The clock periods are read by; a test may fix it. */
  now?: () => Date;
}

/** A scope as an admin's route names it: default, guests, group:<uuid>, person:<id>. */
const SCOPE = /^(default|guests|group:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|person:[^\s]{1,200})$/;

export class Budgets {
  readonly now: () => Date;
  constructor(private readonly options: BudgetsOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** The arguments every budget function takes after the owner: who is a guest, the time, the zone, the variables. */
  statusArgs(): [boolean, Date, string, string | null, string | null] {
    const { settings } = this.options;
    const json = (budget: Budget | undefined) => (budget ? JSON.stringify(budget) : null);
    return [this.options.unknownIsGuest, this.now(), settings.BUDGET_TIME_ZONE, json(settings.BUDGET_DEFAULT), json(settings.BUDGET_GUESTS)];
  }

  /**
   * The budget's standing read ahead, while the caller does other work: a
   * failure surfaces where it is awaited, and nowhere if it never is.
   */
  standing(owner: string): Promise<BudgetStatus | null> {
    const read = this.status(owner);
    read.catch(() => {});
    return read;
  }

  /** The budget that binds `owner` now, with what they spent of it; null when none does. */
  async status(owner: string): Promise<BudgetStatus | null> {
    const { rows } = await this.options.pool().query<StatusRow>("SELECT * FROM threadline_budget_status($1, $2, $3, $4, $5, $6)", [owner, ...this.statusArgs()]);
    return rows.length === 0 ? null : statusOf(rows[0]);
  }

  /**
   * Why a turn may not start, or null: the budget `status` stands at has no
   * room left for the least answer the model could give to a message of
   * `inputTokens` (the history comes on top, and each call of the turn is
   * reserved for itself), or it is in dollars and the model has no price.
   */
  turnRefusal(status: BudgetStatus | null, inputTokens: number, price: Price | undefined, leastOutput: number): { reason: "exceeded" | "unpriced"; status: BudgetStatus } | null {
    if (status === null) return null;
    if (status.unit === "usd" && price === undefined) return { reason: "unpriced", status };
    const need =
      status.unit === "tokens" ? inputTokens + leastOutput : costOf({ inputTokens, outputTokens: leastOutput, cachedTokens: 0, reasoningTokens: 0 }, price!);
    return status.remaining < need ? { reason: "exceeded", status } : null;
  }

  /** Counts a turn a budget kept from starting, for the admin's Spend page. */
  async countRefusal(owner: string, model: string): Promise<void> {
    await this.options.pool().query(
      `INSERT INTO spend_days AS s (owner, day, model, refused) VALUES ($1, ($3::timestamptz AT TIME ZONE $4)::date, $2, 1)
       ON CONFLICT (owner, day, model) DO UPDATE SET refused = s.refused + 1`,
      [owner, model, this.now(), this.options.settings.BUDGET_TIME_ZONE],
    );
  }

  /** Every budget an admin set, and the variables'. */
  async list(): Promise<BudgetList> {
    const { rows } = await this.options.pool().query<{ scope: BudgetScope; amount: string; unit: Budget["unit"]; period: Budget["period"] }>(
      "SELECT scope, amount, unit, period FROM budgets ORDER BY scope",
    );
    const { settings } = this.options;
    return {
      budgets: rows.map((row) => ({ scope: row.scope, amount: Number(row.amount), unit: row.unit, period: row.period })),
      variables: { default: settings.BUDGET_DEFAULT ?? null, guests: settings.BUDGET_GUESTS ?? null },
    };
  }

  /** Sets the budget of `scope`, or clears it (null): a group's must name a group that exists (404). */
  async set(scope: string, budget: Budget | null): Promise<void> {
    if (!SCOPE.test(scope)) {
      throw new AppError("bad_request:scope", 'The scope must be "default", "guests", "group:<id>" or "person:<id>".');
    }
    const pool = this.options.pool();
    if (budget === null) {
      await pool.query("DELETE FROM budgets WHERE scope = $1", [scope]);
      return;
    }
    // A group's budget only while the group is there: the insert finds no row of a group deleted first.
    const group = scope.startsWith("group:") ? scope.slice("group:".length) : null;
    const { rowCount } = await pool.query(
      `INSERT INTO budgets (scope, amount, unit, period)
       SELECT $1, $2, $3, $4 WHERE $5::uuid IS NULL OR EXISTS (SELECT 1 FROM budget_groups g WHERE g.id = $5::uuid)
       ON CONFLICT (scope) DO UPDATE SET amount = EXCLUDED.amount, unit = EXCLUDED.unit, period = EXCLUDED.period, updated_at = now()`,
      [scope, budget.amount, budget.unit, budget.period, group],
    );
    if (rowCount === 0) throw new AppError("not_found:group", "There is no such group.");
  }
}

/** A status row as the protocol says it. */
export function statusOf(row: StatusRow): BudgetStatus | null {
  if (row.scope === null || row.unit === null || row.period === null || row.resets_at === null) return null;
  const amount = Number(row.amount);
  const spent = row.unit === "usd" ? Number(row.spent_usd) : Number(row.spent_tokens);
  return { amount, unit: row.unit, period: row.period, spent, remaining: Math.max(0, amount - spent), resetsAt: row.resets_at.toISOString() };
}

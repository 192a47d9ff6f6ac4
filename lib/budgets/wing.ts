import "server-only";
import type { AccountsSettings } from "@/lib/accounts/settings";
import { once, type Wing, type WingParts } from "@/lib/wing";
import type { Price } from "@/lib/model/model-prices";
import { Budgets } from "./budgets";
import { Groups, type GroupPeople } from "./groups";
import { BudgetSpendGate } from "./spend-gate";
import { refuseOverBudget } from "./turn-gate";
import type { Network } from "@/lib/agent/network/network";
import type { TurnHistory } from "@threadline/history/contract";
import type { TurnInput } from "@/lib/protocol/turn-events";
import type { BudgetStatus } from "@/lib/protocol/budgets";
import type { BudgetsSettings } from "./settings";
import { SpendReport } from "./spend-report";

// Budgets: what each person, group and guest may spend on model calls in a
// period, and the bill every call is counted on, reserved before the call
// and settled after it. The bill outlives the thread (what was spent stays
// spent), so no thread hook removes it; an adoption moves a guest's bill to
// the account.

type BudgetsConfig = BudgetsSettings & Pick<AccountsSettings, "AUTH_MODE">;

/** What the budgets take from the app: the models' prices, what a turn runs with, and who a person is (the accounts wing). */
interface BudgetsApp {
  modelPrices(): Readonly<Record<string, Price>>;
  network(): Network;
  history(): TurnHistory;
  accounts(): { people(): GroupPeople };
}

function services({ config, pool }: WingParts<BudgetsConfig>, app: BudgetsApp) {
  const budgets = once(() => new Budgets({ pool, settings: config, unknownIsGuest: config.AUTH_MODE === "accounts" }));
  return {
    /** The budgets that bind people, and what they spent of them. */
    budgets,
    /** The groups an admin sets budgets for, and who is in them. */
    budgetGroups: once(() => new Groups({ pool, people: () => app.accounts().people() })),
    /** Refuses a turn the person's budget has no room for, storing it with the notice (429 budget:exceeded). */
    refuseOverBudget: (input: Omit<TurnInput, "turnId">, standing: Promise<BudgetStatus | null>) =>
      refuseOverBudget(input, standing, { budgets: budgets(), network: app.network(), history: app.history(), prices: app.modelPrices(), timeZone: config.BUDGET_TIME_ZONE }),
    /** Where every model call is reserved and settled (the network's `spend`). */
    spendGate: once(() => new BudgetSpendGate(pool, budgets(), () => app.modelPrices(), config.BUDGET_TIME_ZONE)),
    /** Who spent what, for the admins: the bill summed by person, group, model or day. */
    spendReport: once(() => new SpendReport({ pool, people: () => app.accounts().people(), timeZone: config.BUDGET_TIME_ZONE })),
  };
}

export const budgetsWing: Wing<BudgetsApp, ReturnType<typeof services>, BudgetsConfig> = {
  name: "budgets",
  tables: ["budgets", "budget_groups", "budget_group_members", "model_calls", "spend_days"],
  services,
  thread: {
    async adopt(tx, from, to) {
      await tx.query("UPDATE model_calls SET owner = $2 WHERE owner = $1", [from, to]);
      // A guest's days join the account's: summed where the account spent on the same day and model.
      await tx.query(
        `WITH moved AS (DELETE FROM spend_days WHERE owner = $1 RETURNING day, model, calls, input_tokens, output_tokens, cost, refused)
         INSERT INTO spend_days AS s (owner, day, model, calls, input_tokens, output_tokens, cost, refused)
         SELECT $2, day, model, calls, input_tokens, output_tokens, cost, refused FROM moved
         ON CONFLICT (owner, day, model) DO UPDATE
           SET calls = s.calls + EXCLUDED.calls, input_tokens = s.input_tokens + EXCLUDED.input_tokens,
               output_tokens = s.output_tokens + EXCLUDED.output_tokens, refused = s.refused + EXCLUDED.refused,
               cost = CASE WHEN s.cost IS NULL AND EXCLUDED.cost IS NULL THEN NULL ELSE coalesce(s.cost, 0) + coalesce(EXCLUDED.cost, 0) END`,
        [from, to],
      );
    },
  },
};

import type { BudgetStatus } from "@/lib/protocol/budgets";
import { amountText } from "./budget-text";

// What a person is told when their budget keeps a model call from being
// made: stored in the thread with the reply it ended, and answered with the
// 429 of a turn refused before it started.

const PERIOD_WORDS = { day: "today", week: "this week", month: "this month" } as const;
const RENEWS = { day: "at midnight", week: "on Monday", month: "on the 1st" } as const;

/** When the budget renews, in the operator's zone's words. */
function renewal(period: BudgetStatus["period"], timeZone: string): string {
  return `it renews ${RENEWS[period]} (${timeZone === "UTC" ? "UTC" : `${timeZone} time`})`;
}

export function refusalText(reason: "exceeded" | "unpriced", status: BudgetStatus | null, model: string, timeZone: string): string {
  if (reason === "unpriced" || status === null) {
    return `Your budget is counted in dollars, and the model ${model} has no price here: pick another model, or ask an admin to give it one.`;
  }
  const { amount, unit, period, spent } = status;
  const budget = `${amountText(amount, unit)} for ${PERIOD_WORDS[period]}`;
  // Less than a reply may need can be left: the reservation, not the spend, reached the budget.
  const used = spent >= amount ? `You have used your ${budget}` : `You have used ${amountText(spent, unit)} of your ${budget}, and what is left is too little for a reply`;
  return `${used}; ${renewal(period, timeZone)}.`;
}

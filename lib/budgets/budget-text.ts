// A budget as an operator writes it in a variable: "$2/day", "2 usd/day",
// "20000 tokens/month", "50 usd per week". Isomorphic and pure: the settings
// read it, and the admin's page writes the same words.
import { MAX_BUDGET_AMOUNT } from "@/lib/protocol/budget-units";
import type { Budget } from "@/lib/protocol/budgets";

const BUDGET_TEXT = /^\s*(\$)?\s*(\d+(?:\.\d{1,6})?)\s*(usd|dollars?|tokens?)?\s*(?:\/|per|a)\s*(day|week|month)\s*$/i;

/** The budget `text` says, or null when it is not one. */
export function parseBudgetText(text: string): Budget | null {
  const match = BUDGET_TEXT.exec(text);
  if (!match) return null;
  const [, dollarSign, digits, word, period] = match;
  const unit = dollarSign ? (word && !/^(usd|dollars?)$/i.test(word) ? null : "usd") : word ? (/^tokens?$/i.test(word) ? "tokens" : "usd") : null;
  const amount = Number(digits);
  if (unit === null || amount > MAX_BUDGET_AMOUNT || (unit === "tokens" && !Number.isInteger(amount))) return null;
  return { amount, unit, period: period.toLowerCase() as Budget["period"] };
}

/** A budget's amount as people read it: "$2.00", "20,000 tokens". */
export function amountText(amount: number, unit: Budget["unit"]): string {
  if (unit === "tokens") return `${Math.round(amount).toLocaleString("en-US")} tokens`;
  return `$${amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: amount > 0 && amount < 0.01 ? 4 : 2 })}`;
}

/** A budget in the words its variable takes ("$2/day", "20000 tokens/month"). */
export function budgetText(budget: Budget): string {
  return budget.unit === "usd" ? `$${budget.amount}/${budget.period}` : `${budget.amount} tokens/${budget.period}`;
}

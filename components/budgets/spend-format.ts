// How the Spend page writes dollars, tokens and days. Isomorphic and pure.
import { amountText } from "@/lib/budgets/budget-text";
import type { UsageGrouping } from "@/lib/protocol/budgets";

/** "$2.00", "$0.0042"; "no price" when a call among them had none. */
export const money = (cost: number | null) => (cost === null ? "no price" : amountText(cost, "usd"));

export const count = (n: number) => n.toLocaleString("en-US");

/** "Mar 3" of "2026-03-03" (a day of the operator's: no zone moves it). */
export const dayLabel = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

/** What each grouping's lines are, as a column's and a caption's word. */
export const GROUPING_NAMES: Record<UsageGrouping, string> = { person: "Person", group: "Group", model: "Model", day: "Day" };

/** The page's address for a range and grouping (and the API's, for the CSV). */
export function spendHref(base: "/admin/spend" | "/api/admin/usage", query: { from: string; to: string; groupBy: UsageGrouping; format?: "csv" }): string {
  return `${base}?${new URLSearchParams(query)}`;
}

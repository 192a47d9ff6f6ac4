import "server-only";
import { stringify } from "csv-stringify/sync";
import type { UsageGrouping, UsageLine } from "@/lib/protocol/budgets";
import type { DayRange } from "./spend-report";

// The admin's report as a spreadsheet opens it. csv-stringify quotes and
// escapes each cell (RFC 4180), and its escape_formulas puts a ' before a
// cell that starts with = + - @, a tab or a carriage return, so a person's
// name is never read as a formula.

export const USAGE_CSV_COLUMNS = ["key", "label", "calls", "input_tokens", "output_tokens", "cost_usd", "refused"] as const;

/** Dollars as a spreadsheet reads them, never in exponent notation; empty when unpriced. */
const dollars = (cost: number | null) => (cost === null ? "" : cost.toFixed(9).replace(/\.?0+$/, ""));

export function usageCsv(rows: readonly UsageLine[]): string {
  return stringify(
    rows.map((r) => [r.key, r.label, r.calls, r.inputTokens, r.outputTokens, dollars(r.cost), r.refused]),
    { header: true, columns: [...USAGE_CSV_COLUMNS], escape_formulas: true, record_delimiter: "\r\n" },
  );
}

/** The download's name: the range and the grouping. */
export const usageCsvName = (range: DayRange, groupBy: UsageGrouping) => `threadline-spend-${range.from}-to-${range.to}-by-${groupBy}.csv`;

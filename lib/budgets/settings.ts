import "server-only";
import { z } from "zod";
import { slice, text, type SettingsOf } from "@/lib/env";
import type { Budget } from "@/lib/protocol/budgets";
import { parseBudgetText } from "./budget-text";

const BUDGET_FORMAT = 'must be an amount a period, as "$2/day", "2 usd/day" or "20000 tokens/month"';

/** A budget variable: its text read as a budget. */
const budget = text
  .max(100)
  .refine((value) => parseBudgetText(value) !== null, BUDGET_FORMAT)
  .transform((value) => parseBudgetText(value) as Budget);

/** A time zone the runtime knows (an IANA name, as Europe/Paris). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The budgets wing's part of the configuration: what everyone and guests may
 * spend on model calls unless an admin says otherwise (lib/budgets/), and
 * the time zone whose midnight starts a day.
 */
export const budgetsSettings = slice({
  shape: {
    /** What each person may spend a period unless their own or a group's budget says otherwise ("$2/day", "20000 tokens/month"); admins are not bound by it. */
    BUDGET_DEFAULT: budget.optional().describe("default budget"),
    /** What each guest may spend a period. */
    BUDGET_GUESTS: budget.optional().describe("guests' budget"),
    /** The time zone whose midnight starts a budget's day, week (Monday) and month. */
    BUDGET_TIME_ZONE: z
      .string()
      .max(100)
      .refine(isTimeZone, "must be a time zone, as UTC or Europe/Paris")
      .default("UTC")
      .describe("budget time zone"),
  },
});

/** The budgets wing's configuration. */
export type BudgetsSettings = SettingsOf<typeof budgetsSettings>;

import { describe, expect, it } from "vitest";
import { budgetWarning, leftText, renewalText, usedText } from "@/lib/client/budget-words";
import type { BudgetStatus } from "@/lib/protocol/budgets";

const status = (over: Partial<BudgetStatus>): BudgetStatus => ({
  amount: 2,
  unit: "usd",
  period: "day",
  spent: 0,
  remaining: 2,
  resetsAt: "2026-03-03T00:00:00.000Z",
  ...over,
});

describe("a budget in words", () => {
  it("says what was used of it, and what is left, in its unit and period", () => {
    expect(usedText(status({}))).toBe("Used $0.00 of $2.00 today");
    expect(usedText(status({ spent: 0.4 }))).toBe("Used $0.40 of $2.00 today");
    expect(usedText(status({ amount: 20000, unit: "tokens", period: "week", spent: 1200 }))).toBe("Used 1,200 of 20,000 tokens this week");
    expect(usedText(status({ amount: 50, period: "month", spent: 12.5 }))).toBe("Used $12.50 of $50.00 this month");
    expect(leftText(status({ spent: 0.4, remaining: 1.6 }))).toBe("$1.60 left today");
    expect(leftText(status({ amount: 20000, unit: "tokens", period: "month", remaining: 18800 }))).toBe("18,800 tokens left this month");
  });

  it("says when it renews by the reader's clock", () => {
    const now = new Date("2026-03-02T15:00:00Z");
    expect(renewalText(new Date("2026-03-03T00:00:00Z"), { now, timeZone: "UTC" })).toBe("at midnight");
    // The operator's midnight (UTC) is 1 AM in Paris.
    expect(renewalText(new Date("2026-03-03T00:00:00Z"), { now, timeZone: "Europe/Paris" })).toBe("tomorrow at 1:00 AM");
    expect(renewalText(new Date("2026-03-03T00:00:00Z"), { now: new Date("2026-03-02T23:30:00Z"), timeZone: "Europe/Paris" })).toBe("at 1:00 AM");
    // A week's end, Monday's start.
    expect(renewalText(new Date("2026-03-09T00:00:00Z"), { now, timeZone: "UTC" })).toBe("when Monday, March 9 begins");
    expect(renewalText(new Date("2026-03-09T00:00:00Z"), { now, timeZone: "America/New_York" })).toBe("on Sunday, March 8 at 8:00 PM");
  });

  it("warns from 80% of it spent, never before", () => {
    const now = new Date("2026-03-02T15:00:00Z");
    expect(budgetWarning(status({ spent: 1.59, remaining: 0.41 }), { now, timeZone: "UTC" })).toBeNull();
    expect(budgetWarning(status({ spent: 1.6, remaining: 0.4 }), { now, timeZone: "UTC" })).toBe("You have used 80% of your $2.00 for today; it renews at midnight.");
    expect(budgetWarning(status({ spent: 1.7, remaining: 0.3 }), { now, timeZone: "UTC" })).toBe("You have used 85% of your $2.00 for today; it renews at midnight.");
    expect(budgetWarning(status({ spent: 2.3, remaining: 0 }), { now, timeZone: "UTC" })).toBe("You have used 100% of your $2.00 for today; it renews at midnight.");
    expect(budgetWarning(status({ amount: 0, spent: 0, remaining: 0 }), { now, timeZone: "UTC" })).toBe("You have used 100% of your $0.00 for today; it renews at midnight.");
    expect(
      budgetWarning(status({ amount: 20000, unit: "tokens", period: "week", spent: 19000, remaining: 1000, resetsAt: "2026-03-09T00:00:00Z" }), { now, timeZone: "UTC" }),
    ).toBe("You have used 95% of your 20,000 tokens for this week; it renews when Monday, March 9 begins.");
  });
});

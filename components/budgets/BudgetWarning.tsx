"use client";

import { useEffect, useState } from "react";
import { budgetWarning } from "@/lib/client/budget-words";
import { useMyBudget } from "@/components/budgets/useMyBudget";

/**
 * By the composer, once most of the person's budget is spent: how much, and
 * when it renews, by their own clock. The live region is always there, so a
 * screen reader announces the warning when it appears.
 */
export function BudgetWarning() {
  const budget = useMyBudget();
  // The clock is read after the first paint: the server's render knows neither the time the page shows it nor the reader's zone.
  const [now, setNow] = useState<Date | null>(null);
  useEffect(() => setNow(new Date()), [budget]);
  const warning = budget && now ? budgetWarning(budget, { now }) : null;
  return (
    <div role="status" className="mx-auto w-full max-w-3xl px-4">
      {warning && (
        <p className="mb-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
          {warning}
        </p>
      )}
    </div>
  );
}

"use client";

import { useEffect, useSyncExternalStore } from "react";
import { myBudget, type MyBudget } from "@/lib/client/budgets";

/** The person's budget as the page last read it; read when first asked for on the page. */
export function useMyBudget(): MyBudget {
  const budget = useSyncExternalStore(myBudget.subscribe, myBudget.get, () => undefined);
  useEffect(() => {
    if (myBudget.get() === undefined) void myBudget.refresh();
  }, []);
  return budget;
}

"use client";

import { useId, useState, type FormEvent, type ReactNode } from "react";
import { budgetText } from "@/lib/budgets/budget-text";
import { BUDGET_PERIODS, BUDGET_UNITS, type BudgetPeriod, type BudgetUnit } from "@/lib/protocol/budget-units";
import type { Budget } from "@/lib/protocol/budgets";

export const fieldClass =
  "rounded-md border border-neutral-300 bg-transparent px-2 py-1 text-sm outline-none focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600 dark:bg-neutral-900";
export const actionClass =
  "rounded-md border border-neutral-300 px-2.5 py-1 text-xs font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-60 dark:border-neutral-600 dark:hover:bg-neutral-800";

const UNIT_WORDS: Record<BudgetUnit, string> = { usd: "US dollars", tokens: "tokens" };
const PERIOD_WORDS: Record<BudgetPeriod, string> = { day: "a day", week: "a week (from Monday)", month: "a month" };

export interface BudgetFormProps {
  /** What the budget is of: the fieldset's name ("Default budget", "Budget of Sales"). */
  legend: string;
  /** The budget an admin set, if any. */
  budget: Budget | null;
  /** What applies when none is set, and who set it: the operator's variable. */
  fallback?: { budget: Budget; source: string } | null;
  busy: boolean;
  onSave(budget: Budget): void;
  /** Clears the budget; absent where there is nothing to clear. */
  onClear?(): void;
  /** Said of a form with nothing set and no fallback. */
  none?: string;
  /** Fields before the amount (the person a budget is for). */
  children?: ReactNode;
  /** Whether the form may be saved as it stands (a person picked). */
  ready?: boolean;
  /** Says what is wrong with what was typed, before anything is sent. */
  onInvalid(message: string): void;
  /** When it changes (another person picked), the fields start again from `budget`. */
  resetOn?: string;
}

/** One budget: what is set now, and an amount, a unit and a period to set, or Clear. */
export function BudgetForm({ legend, budget, fallback, busy, onSave, onClear, none = "None set.", children, ready = true, onInvalid, resetOn }: BudgetFormProps) {
  const id = useId();
  const [amount, setAmount] = useState(budget ? String(budget.amount) : "");
  const [unit, setUnit] = useState<BudgetUnit>(budget?.unit ?? "usd");
  const [period, setPeriod] = useState<BudgetPeriod>(budget?.period ?? "day");
  const [shownFor, setShownFor] = useState(resetOn);
  if (shownFor !== resetOn) {
    setShownFor(resetOn);
    setAmount(budget ? String(budget.amount) : "");
    setUnit(budget?.unit ?? "usd");
    setPeriod(budget?.period ?? "day");
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const value = Number(amount);
    if (amount.trim() === "" || !Number.isFinite(value)) return onInvalid(`${legend}: write an amount, as 2 or 0.50.`);
    onSave({ amount: value, unit, period });
  }

  const now = budget
    ? `Now: ${budgetText(budget)}.`
    : fallback
      ? `Now: ${budgetText(fallback.budget)}, from the server's ${fallback.source} (what you set here takes its place).`
      : none;

  return (
    <form onSubmit={submit}>
      <fieldset className="flex flex-col gap-2 rounded-lg border border-neutral-200 p-3 dark:border-neutral-700">
        <legend className="px-1 text-sm font-medium">{legend}</legend>
        <p className="text-xs text-neutral-600 dark:text-neutral-300">{now}</p>
        <div className="flex flex-wrap items-end gap-2">
          {children}
          <label htmlFor={`${id}-amount`} className="flex flex-col gap-1 text-xs">
            Amount
            <input
              id={`${id}-amount`}
              type="number"
              min={0}
              step="any"
              inputMode="decimal"
              required
              value={amount}
              onChange={(event) => setAmount(event.target.value)}
              className={`${fieldClass} w-32`}
            />
          </label>
          <label htmlFor={`${id}-unit`} className="flex flex-col gap-1 text-xs">
            Unit
            <select id={`${id}-unit`} value={unit} onChange={(event) => setUnit(event.target.value as BudgetUnit)} className={fieldClass}>
              {BUDGET_UNITS.map((u) => (
                <option key={u} value={u}>
                  {UNIT_WORDS[u]}
                </option>
              ))}
            </select>
          </label>
          <label htmlFor={`${id}-period`} className="flex flex-col gap-1 text-xs">
            Period
            <select id={`${id}-period`} value={period} onChange={(event) => setPeriod(event.target.value as BudgetPeriod)} className={fieldClass}>
              {BUDGET_PERIODS.map((p) => (
                <option key={p} value={p}>
                  {PERIOD_WORDS[p]}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={busy || !ready} className={actionClass}>
            Save
          </button>
          {budget && onClear && (
            <button type="button" disabled={busy} onClick={onClear} className={actionClass}>
              Clear
            </button>
          )}
        </div>
      </fieldset>
    </form>
  );
}

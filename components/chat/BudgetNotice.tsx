"use client";

/** When the budget renews, in the reader's own time ("Mon 30 Nov, 00:00"). */
function renewsText(resetsAt: string | undefined): string | null {
  if (!resetsAt) return null;
  const when = new Date(resetsAt);
  if (Number.isNaN(when.getTime())) return null;
  return when.toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

/** The server's word in a reply its person's budget ended, or kept from starting: what ran out, and when it renews. */
export function BudgetNotice({ text, resetsAt }: { text: string; resetsAt?: string }) {
  const renews = renewsText(resetsAt);
  return (
    <div
      role="note"
      aria-label="Budget"
      className="rounded-xl border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100"
    >
      <p>{text}</p>
      {renews && <p className="mt-1 text-xs text-amber-800 dark:text-amber-200">Renews {renews}, your time.</p>}
    </div>
  );
}

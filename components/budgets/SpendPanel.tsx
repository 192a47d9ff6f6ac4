import type { ReactNode } from "react";
import { addDays, type UsageGrouping } from "@/lib/protocol/budget-units";
import type { SpendOverview, UsageLine, UsageReport } from "@/lib/protocol/budgets";
import { SpendChart } from "./SpendChart";
import { SpendTable } from "./SpendTable";
import { count, money, spendHref } from "./spend-format";

const PRESETS = [7, 30, 90, 365] as const;
const field =
  "rounded-md border border-neutral-300 bg-transparent px-2 py-1 text-sm outline-none focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600";

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="flex flex-col gap-2">
      <h2 id={id} className="text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** People's lines as a short list: who, and what `what` says of them. */
function People({ lines, what, empty }: { lines: UsageLine[]; what: (line: UsageLine) => string; empty: string }) {
  if (lines.length === 0) return <p className="text-sm text-neutral-600 dark:text-neutral-300">{empty}</p>;
  return (
    <ol className="flex flex-col gap-1 text-sm">
      {lines.map((line) => (
        <li key={line.key} className="flex justify-between gap-3">
          <span className="truncate" title={line.label}>{line.label}</span>
          <span className="shrink-0 tabular-nums">{what(line)}</span>
        </li>
      ))}
    </ol>
  );
}

export interface SpendPanelProps {
  today: string;
  timeZone: string;
  groupBy: UsageGrouping;
  report: UsageReport;
  overview: SpendOverview;
  /** What was wrong with the range asked for (the last 30 days are shown instead). */
  error: string | null;
}

/** Spend: who spent what over a range of days, its chart by day, the table by a grouping, top spenders and refused turns. */
export function SpendPanel({ today, timeZone, groupBy, report, overview, error }: SpendPanelProps) {
  const { from, to, totals } = overview;
  return (
    <div className="mx-auto flex h-full w-full max-w-4xl flex-col gap-6 overflow-y-auto px-4 py-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-xl font-semibold">Spend</h1>
        <p className="text-sm text-neutral-600 dark:text-neutral-300">
          What the model calls cost from {from} to {to}, both days counted, by the days of {timeZone}.
        </p>
      </div>
      <div className="flex flex-wrap items-end gap-4">
        <form method="get" action="/admin/spend" className="flex flex-wrap items-end gap-2 text-sm">
          <label className="flex flex-col gap-1">
            From
            <input type="date" name="from" defaultValue={from} required className={field} />
          </label>
          <label className="flex flex-col gap-1">
            To
            <input type="date" name="to" defaultValue={to} required className={field} />
          </label>
          <input type="hidden" name="groupBy" value={groupBy} />
          <button type="submit" className={`${field} font-medium hover:bg-neutral-100 dark:hover:bg-neutral-800`}>
            Show
          </button>
        </form>
        <nav aria-label="Ranges" className="flex flex-wrap gap-1 text-sm">
          {PRESETS.map((days) => {
            const start = addDays(today, 1 - days);
            return (
              <a
                key={days}
                href={spendHref("/admin/spend", { from: start, to: today, groupBy })}
                aria-current={start === from && today === to ? "page" : undefined}
                className="rounded-md px-2.5 py-1 underline-offset-2 outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 aria-[current=page]:font-semibold aria-[current=page]:underline dark:hover:bg-neutral-800"
              >
                Last {days} days
              </a>
            );
          })}
        </nav>
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error} The last 30 days are shown instead.
        </p>
      )}
      <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-4">
        {[
          ["Cost", money(totals.cost)],
          ["Calls", count(totals.calls)],
          ["Tokens", count(totals.inputTokens + totals.outputTokens)],
          ["Refused turns", count(totals.refused)],
        ].map(([term, value]) => (
          <div key={term} className="rounded-lg border border-neutral-200 px-3 py-2 dark:border-neutral-700">
            <dt className="text-xs text-neutral-600 dark:text-neutral-300">{term}</dt>
            <dd className="text-lg font-semibold tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
      <SpendChart days={overview.days} />
      <SpendTable from={from} to={to} groupBy={groupBy} report={report} />
      <div className="grid gap-6 sm:grid-cols-2">
        <Section id="top-spenders" title="Top spenders">
          <People lines={overview.topSpenders} what={(line) => `${money(line.cost)} · ${count(line.inputTokens + line.outputTokens)} tokens`} empty="Nobody spent anything in these days." />
        </Section>
        <Section id="refused-turns" title="Refused turns">
          <People lines={overview.refused} what={(line) => `${count(line.refused)} refused`} empty="No budget refused a turn in these days." />
        </Section>
      </div>
    </div>
  );
}

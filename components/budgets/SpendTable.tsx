import { USAGE_GROUPINGS, type UsageGrouping } from "@/lib/protocol/budget-units";
import type { UsageReport } from "@/lib/protocol/budgets";
import { GROUPING_NAMES, count, money, spendHref } from "./spend-format";

const cell = "py-1.5 pr-2 text-right tabular-nums";

/** The range's lines by person, group, model or day, with the switch between them and the CSV of the same lines. */
export function SpendTable({ from, to, groupBy, report }: { from: string; to: string; groupBy: UsageGrouping; report: UsageReport }) {
  const name = GROUPING_NAMES[groupBy];
  return (
    <section aria-labelledby="spend-table" className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="spend-table" className="text-base font-semibold">
          By {name.toLowerCase()}
        </h2>
        <a
          href={spendHref("/api/admin/usage", { from, to, groupBy, format: "csv" })}
          download
          className="rounded-md border border-neutral-300 px-2.5 py-1 text-xs font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600 dark:hover:bg-neutral-800"
        >
          Download CSV
        </a>
      </div>
      <nav aria-label="Group by" className="flex flex-wrap gap-1 text-sm">
        {USAGE_GROUPINGS.map((grouping) => (
          <a
            key={grouping}
            href={spendHref("/admin/spend", { from, to, groupBy: grouping })}
            aria-current={grouping === groupBy ? "page" : undefined}
            className="rounded-md px-2.5 py-1 outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 aria-[current=page]:bg-neutral-900 aria-[current=page]:text-white dark:hover:bg-neutral-800 dark:aria-[current=page]:bg-neutral-100 dark:aria-[current=page]:text-neutral-900"
          >
            {GROUPING_NAMES[grouping]}
          </a>
        ))}
      </nav>
      {report.truncated && <p className="text-xs text-neutral-600 dark:text-neutral-300">Only the {count(report.rows.length)} largest lines are shown.</p>}
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Spend by {name.toLowerCase()}</caption>
        <thead className="text-xs text-neutral-600 dark:text-neutral-300">
          <tr>
            <th scope="col" className="py-2 pr-2 font-medium">{name}</th>
            <th scope="col" className="py-2 pr-2 text-right font-medium">Calls</th>
            <th scope="col" className="py-2 pr-2 text-right font-medium">Input tokens</th>
            <th scope="col" className="py-2 pr-2 text-right font-medium">Output tokens</th>
            <th scope="col" className="py-2 pr-2 text-right font-medium">Cost</th>
            <th scope="col" className="py-2 text-right font-medium">Refused</th>
          </tr>
        </thead>
        <tbody>
          {report.rows.map((row) => (
            <tr key={row.key} className="border-t border-neutral-200 dark:border-neutral-700">
              <th scope="row" className="max-w-64 truncate py-1.5 pr-2 font-normal" title={row.label}>
                {row.label}
              </th>
              <td className={cell}>{count(row.calls)}</td>
              <td className={cell}>{count(row.inputTokens)}</td>
              <td className={cell}>{count(row.outputTokens)}</td>
              <td className={cell}>{money(row.cost)}</td>
              <td className="py-1.5 text-right tabular-nums">{count(row.refused)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {report.rows.length === 0 && <p className="text-sm text-neutral-600 dark:text-neutral-300">Nobody spent anything in these days.</p>}
    </section>
  );
}

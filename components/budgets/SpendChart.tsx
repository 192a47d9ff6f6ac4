import { useId } from "react";
import type { UsageLine } from "@/lib/protocol/budgets";
import { count, dayLabel, money } from "./spend-format";

/**
 * "Spend by day": a bar a day, drawn in SVG (no chart library for a row of
 * bars), in dollars when every day's cost is known, else in tokens. The
 * picture's label says its highest day; the table under it says every day.
 */
export function SpendChart({ days }: { days: UsageLine[] }) {
  const captionId = useId();
  const inDollars = days.every((day) => day.cost !== null);
  const value = (day: UsageLine) => (inDollars ? (day.cost ?? 0) : day.inputTokens + day.outputTokens);
  const shown = (day: UsageLine) => (inDollars ? money(day.cost) : `${count(day.inputTokens + day.outputTokens)} tokens`);
  const highest = days.reduce<UsageLine | null>((top, day) => (top === null || value(day) > value(top) ? day : top), null);
  const max = highest ? value(highest) : 0;
  const first = days[0];
  const last = days.at(-1);
  const summary =
    first && last && highest && max > 0
      ? `${days.length} days from ${dayLabel(first.key)} to ${dayLabel(last.key)}; the highest, ${dayLabel(highest.key)}: ${shown(highest)}`
      : `${days.length} days with no spend`;
  return (
    <figure aria-labelledby={captionId} className="flex flex-col gap-2">
      <figcaption className="flex flex-wrap items-baseline justify-between gap-2">
        <span id={captionId} className="text-base font-semibold">
          Spend by day
        </span>
        <span className="text-xs text-neutral-600 dark:text-neutral-300">
          {inDollars ? "in US dollars" : "in tokens: a model without a price was used"}
        </span>
      </figcaption>
      <svg role="img" aria-label={summary} viewBox={`0 0 ${Math.max(days.length, 1) * 10} 100`} preserveAspectRatio="none" className="h-40 w-full">
        {days.map((day, i) => {
          const height = max > 0 && value(day) > 0 ? Math.max(1, (value(day) / max) * 96) : 0;
          return (
            <rect key={day.key} x={i * 10 + 1} y={100 - height} width={8} height={height} className="fill-neutral-700 dark:fill-neutral-300">
              <title>{`${dayLabel(day.key)}: ${shown(day)}`}</title>
            </rect>
          );
        })}
        <line x1={0} x2={Math.max(days.length, 1) * 10} y1={99.5} y2={99.5} vectorEffect="non-scaling-stroke" className="stroke-neutral-400" />
      </svg>
      {first && last && (
        <div className="flex justify-between text-xs text-neutral-600 dark:text-neutral-300" aria-hidden="true">
          <span>{dayLabel(first.key)}</span>
          <span>{dayLabel(last.key)}</span>
        </div>
      )}
      <details className="text-sm">
        <summary className="cursor-pointer text-neutral-700 dark:text-neutral-200">Every day as a table</summary>
        <table className="mt-2 w-full text-left">
          <caption className="sr-only">Spend by day, every day</caption>
          <thead className="text-xs text-neutral-600 dark:text-neutral-300">
            <tr>
              <th scope="col" className="py-1 pr-2 font-medium">Day</th>
              <th scope="col" className="py-1 pr-2 text-right font-medium">Calls</th>
              <th scope="col" className="py-1 pr-2 text-right font-medium">Tokens</th>
              <th scope="col" className="py-1 text-right font-medium">Cost</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.key} className="border-t border-neutral-200 dark:border-neutral-700">
                <th scope="row" className="py-1 pr-2 font-normal">{day.key}</th>
                <td className="py-1 pr-2 text-right tabular-nums">{count(day.calls)}</td>
                <td className="py-1 pr-2 text-right tabular-nums">{count(day.inputTokens + day.outputTokens)}</td>
                <td className="py-1 text-right tabular-nums">{money(day.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

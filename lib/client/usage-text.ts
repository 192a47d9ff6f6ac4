// A usage sum in words for the page: "12,345 tokens · $0.0123". Pure.
import type { UsageSum } from "@/lib/protocol/usage";

/** Dollars with four decimals (a turn costs fractions of a cent); under a ten-thousandth, "< $0.0001". */
export function dollars(cost: number): string {
  if (cost === 0) return "$0";
  if (cost < 0.0001) return "< $0.0001";
  return `$${cost.toFixed(4)}`;
}

/** Its tokens, and its cost when every call in it has a price. */
export function usageText(sum: Pick<UsageSum, "totalTokens" | "cost">): string {
  const tokens = `${sum.totalTokens.toLocaleString("en-US")} token${sum.totalTokens === 1 ? "" : "s"}`;
  return sum.cost === null ? tokens : `${tokens} · ${dollars(sum.cost)}`;
}

import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { app } from "@/lib/app";
import { pageRequest } from "@/lib/accounts/page-request";
import { validationError } from "@/lib/http/body";
import { usageQuerySchema, type UsageQuery } from "@/lib/protocol/budgets";
import { SpendPanel } from "@/components/budgets/SpendPanel";

export const metadata: Metadata = { title: "Spend" };
export const dynamic = "force-dynamic";

type SearchParams = Record<string, string | string[] | undefined>;
const one = (value: string | string[] | undefined) => (typeof value === "string" && value !== "" ? value : undefined);

/** The admin's page: who spent what over a range of days. Its range and grouping are the URL's, so a view is a link; anyone else finds nothing here. */
export default async function SpendPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const identity = await app().accounts().identify(await pageRequest());
  if (!identity) await app().ownerFromCookies(); // nobody signed in: the sign-in page
  if (identity?.person?.role !== "admin") notFound();
  const spend = app().spendReport();
  const today = spend.today();
  const asked = await searchParams;
  const schema = usageQuerySchema(today);
  const parsed = schema.safeParse({ from: one(asked.from), to: one(asked.to), groupBy: one(asked.groupBy) ?? "person" });
  // A range the page cannot read: said, and the last 30 days shown instead.
  const query: UsageQuery = parsed.success ? parsed.data : schema.parse({ groupBy: "person" });
  const [report, overview] = await Promise.all([spend.report(query, query.groupBy), spend.overview(query)]);
  return (
    <SpendPanel
      today={today}
      timeZone={spend.timeZone}
      groupBy={query.groupBy}
      report={report}
      overview={overview}
      error={parsed.success ? null : validationError(parsed.error).message}
    />
  );
}

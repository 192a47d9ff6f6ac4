import { jsonResponse, route } from "@/lib/http/handler";
import { readQuery } from "@/lib/http/query";
import { app } from "@/lib/app";
import { usageCsv, usageCsvName } from "@/lib/budgets/spend-csv";
import { usageQuerySchema, type UsageReport } from "@/lib/protocol/budgets";

export const dynamic = "force-dynamic";

/** Who spent what over a range of days (the last 30 by default), by person, group, model or day; as JSON or CSV. */
export const GET = route(async (request) => {
  await app().accounts().requireAdmin(request);
  const spend = app().spendReport();
  const query = readQuery(request, usageQuerySchema(spend.today()), ["from", "to", "groupBy", "format"]);
  const report = await spend.report(query, query.groupBy);
  if (query.format === "json") return jsonResponse(report satisfies UsageReport);
  return new Response(usageCsv(report.rows), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${usageCsvName(query, query.groupBy)}"`,
      "cache-control": "no-store",
    },
  });
});

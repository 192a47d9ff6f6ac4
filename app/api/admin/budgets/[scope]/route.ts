import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { budgetChangeSchema } from "@/lib/protocol/budgets";

export const dynamic = "force-dynamic";

export const PUT = route<{ params: Promise<{ scope: string }> }>(async (request, { params }) => {
  const { scope } = await params;
  await app().accounts().requireAdmin(request);
  const budget = await readJson(request, budgetChangeSchema, 1024);
  await app().budgets().set(scope, budget);
  return jsonResponse({ budget });
});

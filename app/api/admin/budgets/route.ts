import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import type { BudgetList } from "@/lib/protocol/budgets";

export const dynamic = "force-dynamic";

export const GET = route(async (request) => {
  await app().accounts().requireAdmin(request);
  return jsonResponse((await app().budgets().list()) satisfies BudgetList);
});

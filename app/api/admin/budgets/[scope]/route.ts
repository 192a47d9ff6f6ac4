import { AppError } from "@threadline/history/errors";
import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { budgetChangeSchema } from "@/lib/protocol/budgets";

export const dynamic = "force-dynamic";

export const PUT = route<{ params: Promise<{ scope: string }> }>(async (request, { params }) => {
  const { scope } = await params;
  await app().accounts().requireAdmin(request);
  const budget = await readJson(request, budgetChangeSchema, 1024);
  // A person's budget only for someone who has an account: a mistyped id would be a budget nobody has.
  if (scope.startsWith("person:") && !(await app().accounts().people().get(scope.slice("person:".length)))) {
    throw new AppError("not_found:person", "There is no such person.");
  }
  await app().budgets().set(scope, budget);
  return jsonResponse({ budget });
});

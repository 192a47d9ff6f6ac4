import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import type { MeBudget } from "@/lib/protocol/budgets";

export const dynamic = "force-dynamic";

export const GET = route(async (request) => {
  const owner = await app().requireOwner(request);
  return jsonResponse({ budget: await app().budgets().status(owner) } satisfies MeBudget);
});

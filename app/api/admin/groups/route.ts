import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { groupNameChangeSchema, type GroupList } from "@/lib/protocol/budgets";

export const dynamic = "force-dynamic";

export const GET = route(async (request) => {
  await app().accounts().requireAdmin(request);
  return jsonResponse({ groups: await app().budgetGroups().list() } satisfies GroupList);
});

export const POST = route(async (request) => {
  await app().accounts().requireAdmin(request);
  const { name } = await readJson(request, groupNameChangeSchema, 1024);
  return jsonResponse({ group: await app().budgetGroups().create(name) }, { status: 201 });
});

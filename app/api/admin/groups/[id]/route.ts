import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { groupIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { groupNameChangeSchema } from "@/lib/protocol/budgets";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ id: string }> };

export const PATCH = route<Params>(async (request, { params }) => {
  const id = groupIdParam((await params).id);
  await app().accounts().requireAdmin(request);
  const { name } = await readJson(request, groupNameChangeSchema, 1024);
  return jsonResponse({ group: await app().budgetGroups().rename(id, name) });
});

export const DELETE = route<Params>(async (request, { params }) => {
  const id = groupIdParam((await params).id);
  await app().accounts().requireAdmin(request);
  await app().budgetGroups().delete(id);
  return new Response(null, { status: 204 });
});

import { readJson } from "@/lib/http/body";
import { jsonResponse, route } from "@/lib/http/handler";
import { personIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { personChangeSchema } from "@/lib/protocol/accounts";

export const dynamic = "force-dynamic";

export const PATCH = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = personIdParam((await params).id);
  const admin = await app().accounts().requireAdmin(request);
  const { action } = await readJson(request, personChangeSchema, 1024);
  return jsonResponse({ person: await app().accounts().change(admin, id, action) });
});

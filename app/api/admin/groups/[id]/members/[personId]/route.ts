import { jsonResponse, route } from "@/lib/http/handler";
import { groupIdParam, personIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ id: string; personId: string }> };

/** Puts the person in the group by hand. */
export const PUT = route<Params>(async (request, { params }) => {
  const { id, personId } = await params;
  const group = groupIdParam(id);
  const person = personIdParam(personId);
  await app().accounts().requireAdmin(request);
  return jsonResponse({ member: await app().budgetGroups().addMember(group, person) });
});

export const DELETE = route<Params>(async (request, { params }) => {
  const { id, personId } = await params;
  const group = groupIdParam(id);
  const person = personIdParam(personId);
  await app().accounts().requireAdmin(request);
  await app().budgetGroups().removeMember(group, person);
  return new Response(null, { status: 204 });
});

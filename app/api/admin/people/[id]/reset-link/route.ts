import { jsonResponse, route } from "@/lib/http/handler";
import { personIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** A one-time link that sets the person's password, shown once (an admin's way to reset without mail). */
export const POST = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = personIdParam((await params).id);
  await app().accounts().requireAdmin(request);
  return jsonResponse({ link: await app().accounts().resetLink(id, request) }, { status: 201 });
});

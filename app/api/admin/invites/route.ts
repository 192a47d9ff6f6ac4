import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** A new invite link, shown once. */
export const POST = route(async (request) => {
  const admin = await app().accounts().requireAdmin(request);
  return jsonResponse({ invite: await app().accounts().invite(admin, request) }, { status: 201 });
});

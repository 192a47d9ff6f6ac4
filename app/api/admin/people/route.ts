import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

export const GET = route(async (request) => {
  await app().accounts().requireAdmin(request);
  return jsonResponse({ people: await app().accounts().people().list() });
});

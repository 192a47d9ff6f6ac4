import { jsonResponse, route } from "@/lib/http/handler";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** The identity's live device link, if any (its expiry, never its code). */
export const GET = route(async (request) => {
  const owner = await app().accounts().requireBrowserIdentity(request);
  return jsonResponse({ link: await app().deviceLinks().active(owner) });
});

/** A new one-time link for this identity; the previous one stops working. */
export const POST = route(async (request) => {
  const owner = await app().accounts().requireBrowserIdentity(request);
  return jsonResponse({ link: await app().deviceLinks().create(owner) }, { status: 201 });
});

export const DELETE = route(async (request) => {
  const owner = await app().accounts().requireBrowserIdentity(request);
  await app().deviceLinks().revoke(owner);
  return new Response(null, { status: 204 });
});

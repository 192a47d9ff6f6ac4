import { NextResponse } from "next/server";
import { AppError } from "@threadline/history/errors";
import { newIdentity, signIdentity } from "@/lib/auth/identity";
import { identityCookie } from "@/lib/auth/identity-cookie";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { route } from "@/lib/http/handler";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** A guest's browser identity (AUTH_MODE=accounts with AUTH_GUESTS): counted per address, as open mode's new visitors are. */
export const POST = route(async (request) => {
  const accounts = app().accounts();
  if (accounts.mode !== "accounts" || !app().config.AUTH_GUESTS) throw new AppError("not_found:guests", "Guests may not chat here: sign in or sign up.");
  const existing = await accounts.browserIdentity(request.headers);
  const response = NextResponse.json({ guest: true }, { headers: { "cache-control": "no-store" } });
  if (existing) return response;
  await app().rateLimits().limitNewIdentity(requestAddress(request));
  response.cookies.set(identityCookie(await signIdentity(newIdentity(), await app().sessionSecret()), accounts.https(request)));
  return response;
});

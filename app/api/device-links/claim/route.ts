import { NextResponse } from "next/server";
import { signIdentity } from "@/lib/auth/identity";
import { identityCookie, isHttps } from "@/lib/auth/identity-cookie";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/handler";
import { app } from "@/lib/app";
import { claimDeviceLinkSchema } from "../schema";

export const dynamic = "force-dynamic";

/** Takes over the identity a device link carries: this browser's cookie becomes that identity's. */
export const POST = route(async (request) => {
  const { code } = await readJson(request, claimDeviceLinkSchema);
  const owner = await app().deviceLinks().redeem(code);
  const response = NextResponse.json({ ok: true }, { headers: { "cache-control": "no-store" } });
  response.cookies.set(identityCookie(await signIdentity(owner, await app().sessionSecret()), isHttps(request)));
  return response;
});

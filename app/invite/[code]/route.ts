import { NextResponse } from "next/server";
import { app } from "@/lib/app";
import { INVITE_COOKIE } from "@/lib/accounts/accounts";

export const dynamic = "force-dynamic";

/**
 * An invite link's landing: an open invite goes with the browser (an
 * httpOnly cookie, for the sign-up that uses it, whichever way it signs up)
 * to the sign-up page; a used or expired one to the page that says so.
 */
export async function GET(request: Request, { params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  const accounts = app().accounts();
  const open = accounts.mode === "accounts" && /^[A-Za-z0-9_-]{43}$/.test(code) && (await accounts.people().inviteOpen(code));
  const response = NextResponse.redirect(new URL(open ? "/sign-up?invite=1" : "/sign-up?invite=expired", request.url), 303);
  if (open) {
    response.cookies.set({ name: INVITE_COOKIE, value: code, httpOnly: true, sameSite: "lax", secure: accounts.https(request), path: "/", maxAge: 60 * 60 });
  }
  return response;
}

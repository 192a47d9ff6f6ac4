import { app } from "@/lib/app";
import { INVITE_COOKIE } from "@/lib/accounts/accounts";

export const dynamic = "force-dynamic";

/**
 * An invite link's landing: an open invite goes with the browser (an
 * httpOnly cookie, for the sign-up that uses it, whichever way it signs up)
 * to the sign-up page; a used or expired one to the page that says so. The
 * redirect is relative: the route's own URL may name another host than the
 * one the browser used.
 */
export async function GET(request: Request, { params }: { params: Promise<{ code: string }> }) {
  const { code } = await params;
  const accounts = app().accounts();
  const open = accounts.mode === "accounts" && /^[A-Za-z0-9_-]{43}$/.test(code) && (await accounts.people().inviteOpen(code));
  const headers = new Headers({ location: open ? "/sign-up?invite=1" : "/sign-up?invite=expired", "cache-control": "no-store", "referrer-policy": "no-referrer" });
  if (open) {
    const secure = accounts.https(request) ? "; Secure" : "";
    headers.append("set-cookie", `${INVITE_COOKIE}=${code}; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax${secure}`);
  }
  return new Response(null, { status: 303, headers });
}

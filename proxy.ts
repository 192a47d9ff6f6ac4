import { NextResponse, type NextRequest } from "next/server";
import { IDENTITY_COOKIE, IDENTITY_MAX_AGE_SECONDS, newIdentity, signIdentity, verifyIdentity } from "@/lib/auth/identity";
import { getSessionSecret } from "@/lib/auth/secret";

// Every visitor gets an anonymous identity on the first request, before any
// page or route runs, so that a page and its first API calls agree on it.
export async function proxy(request: NextRequest) {
  const secret = await getSessionSecret();
  if (await verifyIdentity(request.cookies.get(IDENTITY_COOKIE)?.value, secret)) return NextResponse.next();

  const value = await signIdentity(newIdentity(), secret);
  request.cookies.set(IDENTITY_COOKIE, value);
  const response = NextResponse.next({ request: { headers: request.headers } });
  response.cookies.set(IDENTITY_COOKIE, value, {
    httpOnly: true,
    sameSite: "lax",
    secure: request.nextUrl.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https",
    path: "/",
    maxAge: IDENTITY_MAX_AGE_SECONDS,
  });
  return response;
}

export const config = {
  matcher: ["/((?!_next/|favicon.ico|api/health|api/inngest).*)"],
};

import { NextResponse, type NextRequest } from "next/server";
import { IDENTITY_COOKIE, newIdentity, signIdentity, verifyIdentity } from "@/lib/auth/identity";
import { identityCookie, isHttps } from "@/lib/auth/identity-cookie";
import { app } from "@/lib/app";
import { SESSION_COOKIE } from "@/lib/accounts/cookie-names";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address.mjs";
import { errorResponse } from "@/lib/http/handler";
import { mayMintIdentity, stateChangeRefusal } from "@/lib/http/request-origin";
import { newNonce, pageContentSecurityPolicy, staticPagePolicy } from "@/lib/http/security-headers";
import { SHARED_CACHE_CONTROL, SHARED_HEADERS } from "@/lib/shares/shared-headers";
import { unavailablePage } from "@/lib/shares/unavailable-page";
import { SHARE_STATE_HEADER } from "@/lib/shares/share-state";

// Runs before every page and API route (not static assets, the icons and the
// web app manifest, the health check, /api/inngest, POST /api/chat or the import: see
// config below): refuses state-changing requests from other origins, sends a
// page request with no session to the sign-in page (AUTH_MODE=accounts) or
// gives the visitor an anonymous identity on a safe request (open), and sets
// the page's Content-Security-Policy with a fresh nonce.
export async function proxy(request: NextRequest) {
  const { headers, nextUrl: url, method } = request;
  const refusal = stateChangeRefusal(method, headers, url);
  if (refusal) return errorResponse(refusal);

  const https = isHttps(request);
  const shared = SHARED.exec(url.pathname);
  // API responses, and a shared link's Markdown and files, get their own fixed policy from next.config.ts.
  const csp =
    url.pathname.startsWith("/api/") || (shared && shared[2])
      ? undefined
      : pageContentSecurityPolicy(newNonce(), { dev: app().config.NODE_ENV === "development", https });
  // Copied only to be changed: a request passed on with headers of the proxy's
  // own has every header serialized and applied again by Next, on each API call.
  let requestHeaders: Headers | undefined;
  const changedHeaders = () => (requestHeaders ??= new Headers(headers));
  if (csp) changedHeaders().set("content-security-policy", csp); // Next.js reads the nonce from here

  // A shared link is anyone's to read, as it is: no sign-in first, no identity minted, no cookie set.
  if (shared) return sharedLink(request, shared, changedHeaders, csp);

  const mode = app().config.AUTH_MODE;
  if (mode === "accounts" && signInFirst(request, app().config.AUTH_GUESTS)) {
    const signIn = new URL("/sign-in", url);
    if (url.pathname !== "/") signIn.searchParams.set("next", url.pathname);
    return NextResponse.redirect(signIn, 303);
  }

  let minted: string | undefined;
  // Only open mode gives every visitor a browser identity; a guest asks for one (POST /api/guest).
  const secret = mode === "open" ? await app().sessionSecret() : undefined;
  if (secret && !(await verifyIdentity(request.cookies.get(IDENTITY_COOKIE)?.value, secret)) && mayMintIdentity(method, headers, url)) {
    try {
      await app().rateLimits().limitNewIdentity(headers.get(CLIENT_ADDRESS_HEADER) ?? undefined);
    } catch (error) {
      return errorResponse(error); // a 429 with Retry-After
    }
    minted = await signIdentity(newIdentity(), secret);
    request.cookies.set(IDENTITY_COOKIE, minted);
    changedHeaders().set("cookie", request.cookies.toString());
  }

  const response = requestHeaders ? NextResponse.next({ request: { headers: requestHeaders } }) : NextResponse.next();
  if (csp) response.headers.set("content-security-policy", csp);
  if (minted) response.cookies.set(identityCookie(minted, https));
  return response;
}

/** A share link's page (/s/:shareId), or its Markdown or one of its files (group 2). */
const SHARED = /^\/s\/([^/]+)(\/.+)?$/;

/**
 * A shared page: counted against the address's limit, its link looked up
 * (a view counted) and what was found told to the page; one that does not
 * open is answered here, 410 (revoked, expired) or 404 (unknown, forged),
 * with the same page and the same work (lib/shares/unavailable-page.ts). The
 * Markdown and files routes look their link up themselves.
 */
async function sharedLink(request: NextRequest, [, shareId, rest]: RegExpExecArray, changedHeaders: () => Headers, csp: string | undefined) {
  const requestHeaders = changedHeaders();
  requestHeaders.delete(SHARE_STATE_HEADER); // only the proxy says what it found
  if (rest || (request.method !== "GET" && request.method !== "HEAD")) {
    return NextResponse.next({ request: { headers: requestHeaders } });
  }
  try {
    await app().rateLimits().limitShareView(request.headers.get(CLIENT_ADDRESS_HEADER) ?? undefined);
  } catch (error) {
    return errorResponse(error); // a 429 with Retry-After
  }
  const state = await app().shares().open(shareId, request.method === "GET");
  if (state === "live") {
    requestHeaders.set(SHARE_STATE_HEADER, state);
    const response = NextResponse.next({ request: { headers: requestHeaders } });
    if (csp) response.headers.set("content-security-policy", csp);
    response.headers.set("cache-control", SHARED_CACHE_CONTROL);
    return response;
  }
  const nonce = newNonce();
  return new NextResponse(request.method === "HEAD" ? null : unavailablePage(state, nonce), {
    status: state === "gone" ? 410 : 404,
    headers: {
      ...SHARED_HEADERS,
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": staticPagePolicy(nonce),
      "cache-control": SHARED_CACHE_CONTROL,
    },
  });
}

/** The pages anyone may open: signing in, signing up, resetting a password, an invite's landing. */
const PUBLIC_PAGES = /^\/(sign-in|sign-up|forgot-password|reset-password|invite)(\/|$)/;

/**
 * Whether a page request must go to the sign-in page first: no session
 * cookie and (where guests may chat) no guest's identity. Only their presence is checked here; the
 * page (and every API route) checks that they are valid.
 */
function signInFirst(request: NextRequest, guests: boolean): boolean {
  const { pathname } = request.nextUrl;
  if (pathname.startsWith("/api/") || PUBLIC_PAGES.test(pathname)) return false;
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const names = request.cookies.getAll().map((cookie) => cookie.name);
  return !names.some((name) => name === SESSION_COOKIE || name === `__Secure-${SESSION_COOKIE}` || (guests && name === IDENTITY_COOKIE));
}

// The icons and the manifest are the same for everyone and need no identity: a
// browser fetches the manifest without cookies, which would otherwise mint (and
// count against the address's limit) a new identity on every page load.
// /api/chat is every turn's request, and the proxy would do nothing for it but
// its origin and body checks (no page, so no nonce; a POST, so no new
// identity; the route checks the cookie itself): the route makes those checks,
// and the proxy's run through Next, a copy of the request among it, is spared
// on every turn. /api/threads/import makes them itself too: for a route the
// proxy runs before, Next buffers the body for both, and cuts it off at 10 MB
// (experimental.proxyClientMaxBodySize), while a thread's file may be 128 MB
// and is read as it arrives. POST /api/files likewise, for an attachment
// (ATTACHMENT_MAX_MB may be over 10).
export const config = {
  matcher: ["/((?!_next/|favicon.ico|icon/|apple-icon|manifest.webmanifest|api/health|api/inngest|api/chat$|api/threads/import$|api/files$).*)"],
};

import "server-only";
import { z } from "zod";
import { AppError } from "@threadline/history/errors";
import { readJson } from "@/lib/http/body";
import { stateChangeRefusal } from "@/lib/http/request-origin";
import { requestAddress } from "@/lib/http/client-address.mjs";
import type { RateLimits } from "@/lib/rate-limit";
import type { Accounts } from "./accounts";
import { safeNext } from "./sign-in-page";

// /api/auth/*: Better Auth's own endpoints (sign-up/email, sign-in/email,
// sign-out, get-session …), behind Threadline's limits, which are counted in
// Postgres so that every server shares them: the requests that try a
// password, make an account or send a mail are counted per address, and
// failed sign-ins per email lock that email for a while, whether or not an
// account has it (the answer must not tell which). The requests that mail
// someone have their bodies read here, bounded, and go on with the links'
// landings fixed to this site's own pages.

/** The endpoints that try a password, make an account, or mail someone. */
const COUNTED = new Set([
  "/sign-in/email",
  "/sign-up/email",
  "/request-password-reset",
  "/reset-password",
  "/sign-in/magic-link",
  "/sign-in/social",
  "/passkey/verify-authentication",
  "/passkey/verify-registration",
]);
/** A sign-in's body is an email and a password: far below this. */
const MAX_SIGN_IN_BYTES = 16 * 1024;

const signInBody = z.looseObject({ email: z.string().max(320) });
const resetRequestBody = z.looseObject({ email: z.string().max(320) });
const resetBody = z.looseObject({ token: z.string().max(200), newPassword: z.string().max(1000) });
const signInLinkBody = z.looseObject({ email: z.string().max(320), callbackURL: z.string().max(2000).optional() });
const personName = z.string().trim().min(1, "Say what to call you.").max(100, "A name is at most 100 characters.");
const signUpBody = z.looseObject({ name: personName, email: z.string().max(320) });
/** Any other request of Better Auth's (a sign-out, a change to one's name, a passkey removed): small, and a name stays a name. */
const otherBody = z.looseObject({ name: personName.optional(), image: z.string().max(2000, "A picture's address is at most 2000 characters.").optional() });

/** A passkey's registration: the authenticator's answer (a few kilobytes) and a name to know it by. */
const newPasskeyBody = z.looseObject({ name: z.string().trim().max(100, "A passkey's name is at most 100 characters.").optional() });
const MAX_PASSKEY_BYTES = 64 * 1024;

/**
 * The start of an OIDC sign-in: the provider and where to go after, nothing
 * else. Better Auth's endpoint would also take an ID token the browser
 * hands in and sign its subject in, with no state, PKCE or nonce of ours
 * behind it (a token leaked from elsewhere would do): that branch is closed
 * here, as are the extra scopes and authorization parameters it takes.
 */
const sitePath = z
  .string()
  .max(2000, "An address to come back to is at most 2000 characters.")
  // A path of this site only (never //elsewhere): where a sign-in sends the browser after must not be somebody else's page.
  .regex(/^\/(?![/\\])/, "The address to come back to must be a path of this site.");
const oidcStartBody = z.strictObject({
  provider: z.string().max(40),
  callbackURL: sitePath.optional(),
  errorCallbackURL: sitePath.optional(),
});

/** The same request, its body the one already read. */
const withBody = (request: Request, body: unknown) => new Request(request.url, { method: "POST", headers: request.headers, body: JSON.stringify(body) });

/**
 * A sign-up an admin must approve keeps its account but no session: the
 * session Better Auth made with it is ended and the answer says why, with no
 * cookie (Better Auth's sign-up answers a refused session with an error that
 * would not say the account is waiting).
 */
async function pendingRefused(accounts: Accounts, response: Response): Promise<Response> {
  if (!response.ok) return response;
  const body = (await response.clone().json()) as { user?: { id: string; status?: string } };
  if (body.user?.status !== "pending") return response;
  await accounts.endSessions(body.user.id);
  // In Better Auth's own shape, as the endpoint's other refusals are.
  return Response.json(
    { code: "PENDING_APPROVAL", message: "Your account is waiting for an admin's approval. You can sign in once they approve it." },
    { status: 403, headers: { "cache-control": "no-store" } },
  );
}

/**
 * The answer without the session's token, which Better Auth also puts in the
 * body (for clients that send it as a bearer): here it lives only in the
 * httpOnly cookie, out of reach of the page's scripts.
 */
async function withoutToken(response: Response): Promise<Response> {
  if (!response.ok || !response.headers.get("content-type")?.includes("application/json")) return response;
  const body = (await response.json()) as Record<string, unknown> & { session?: Record<string, unknown> };
  delete body.token;
  if (body.session && typeof body.session === "object") delete body.session.token;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: response.status, headers });
}

/** Better Auth's answer to a reset token that is used up, expired or unknown, in words. */
async function clearTokenRefusal(response: Response): Promise<Response> {
  if (response.status !== 400) return response;
  const body = (await response.clone().json().catch(() => null)) as { code?: string } | null;
  if (body?.code !== "INVALID_TOKEN") return response;
  return Response.json(
    { code: "INVALID_TOKEN", message: "This reset link has been used or has expired. Ask for a new one." },
    { status: 400, headers: { "cache-control": "no-store" } },
  );
}

/**
 * A sign-in link opened in the browser ends on a page either way: signed in
 * (Better Auth's redirect to its callback), or on the sign-in page with the
 * reason (an expired link redirects there itself; a session refused to a
 * pending or disabled person is an error here, made a redirect).
 */
async function signInLinkLanded(response: Response): Promise<Response> {
  if (response.status < 400) return withoutToken(response);
  const body = (await response.json().catch(() => null)) as { code?: string } | null;
  const location = `/sign-in?error=${encodeURIComponent(body?.code ?? "SIGN_IN_LINK_FAILED")}`;
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

const noMail = () => new AppError("not_found:mail", "This server sends no mail. Ask an admin for a link to reset your password.");

export interface AuthRouteApp {
  accounts(): Accounts;
  rateLimits(): Pick<RateLimits, "limitAuth" | "refuseLockedOut" | "signInFailed" | "signInSucceeded">;
}

export async function authRoute(app: AuthRouteApp, request: Request): Promise<Response> {
  const accounts = app.accounts();
  if (accounts.mode !== "accounts") throw new AppError("not_found:auth", `Nobody signs in here: this server runs with AUTH_MODE=${accounts.mode}.`);
  // proxy.ts makes this check before the route too; a request that reaches the route some other way gets the same rules.
  const refusal = stateChangeRefusal(request.method, request.headers, request.url);
  if (refusal) throw refusal;
  const auth = await accounts.auth(accounts.https(request));
  const path = new URL(request.url).pathname.replace(/^\/api\/auth/, "");
  if (request.method === "GET" && path === "/magic-link/verify") return signInLinkLanded(await auth.handler(request));
  if (request.method !== "POST") return auth.handler(request);
  if (!COUNTED.has(path)) {
    if (!request.body) return auth.handler(request);
    return auth.handler(withBody(request, await readJson(request, otherBody, MAX_SIGN_IN_BYTES)));
  }

  const limits = app.rateLimits();
  await limits.limitAuth(requestAddress(request));
  if (path === "/sign-up/email") {
    const body = await readJson(request, signUpBody, MAX_SIGN_IN_BYTES);
    return withoutToken(await pendingRefused(accounts, await auth.handler(withBody(request, body))));
  }
  if (path === "/passkey/verify-registration") {
    const body = await readJson(request, newPasskeyBody, MAX_PASSKEY_BYTES);
    await accounts.refuseMorePasskeys(request);
    return auth.handler(withBody(request, body));
  }
  if (path === "/passkey/verify-authentication") {
    const body = await readJson(request, z.looseObject({}), MAX_PASSKEY_BYTES);
    return withoutToken(await auth.handler(withBody(request, body)));
  }
  if (path === "/sign-in/social") {
    const body = await readJson(request, oidcStartBody, MAX_SIGN_IN_BYTES);
    const provider = accounts.oidcProviders.find(({ id }) => id === body.provider);
    if (!provider) throw new AppError("not_found:oidc", "There is no such sign-in provider here.");
    const ready = await accounts.oidcAuth(accounts.https(request), provider.id);
    if (!ready) {
      throw new AppError("unavailable:oidc", `Sign-in with ${provider.label} is unavailable: the provider did not answer as this server expects. Try again in a minute, or ask an admin.`);
    }
    return ready.handler(withBody(request, body));
  }
  // The links a mail carries lead to this site's own pages, whatever a client asks for.
  if (path === "/request-password-reset") {
    if (!accounts.mail) throw noMail();
    const { email } = await readJson(request, resetRequestBody, MAX_SIGN_IN_BYTES);
    return auth.handler(withBody(request, { email, redirectTo: "/reset-password" }));
  }
  if (path === "/sign-in/magic-link") {
    if (!accounts.mail) throw noMail();
    const { email, callbackURL } = await readJson(request, signInLinkBody, MAX_SIGN_IN_BYTES);
    return auth.handler(withBody(request, { email, callbackURL: safeNext(callbackURL), errorCallbackURL: "/sign-in" }));
  }
  if (path === "/reset-password") {
    const { token, newPassword } = await readJson(request, resetBody, MAX_SIGN_IN_BYTES);
    return clearTokenRefusal(await auth.handler(withBody(request, { token, newPassword })));
  }
  if (path !== "/sign-in/email") return auth.handler(request);

  const body = await readJson(request, signInBody, MAX_SIGN_IN_BYTES);
  await limits.refuseLockedOut(body.email);
  const response = await auth.handler(withBody(request, body));
  if (response.status === 401) await limits.signInFailed(body.email);
  else if (response.ok) await limits.signInSucceeded(body.email);
  return withoutToken(response);
}

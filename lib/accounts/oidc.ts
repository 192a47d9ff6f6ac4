import "server-only";
import { decodeJwt } from "jose";
import { defineRequestState } from "@better-auth/core/context";
import { genericOAuth, type GenericOAuthConfig } from "better-auth/plugins/generic-oauth";
import { groupsOfClaim } from "./groups-claim";
import type { OidcProvider } from "./oidc-settings";

// Sign-in through OpenID Connect providers: Better Auth's generic OAuth plugin
// runs the authorization code flow (a maintained implementation of what is
// easy to get subtly wrong). It checks the state (random, kept in
// auth_verifications and in a signed cookie of the browser that started, used
// once, ten minutes), sends PKCE (S256) and a nonce, and verifies the ID token
// (signature by the provider's JWKS, audience our client id, issuer the
// discovery document's, the nonce) and the callback's `iss` (RFC 9207).
// What it does not check, Threadline adds here: that the discovery document's
// issuer is the configured one (discover()), that an ID token is there at
// all, and its `iss` again. docs/security.md says who checks what.

/** How long a provider may take to answer discovery or userinfo. */
const PROVIDER_TIMEOUT_MS = 10_000;
/** What a discovery document or userinfo answer may weigh: far above any real one. */
const MAX_PROVIDER_ANSWER_BYTES = 256 * 1024;

/** An issuer as compared: one trailing slash is not a different issuer. */
const sameIssuer = (a: unknown, b: string) => typeof a === "string" && a.replace(/\/$/, "") === b.replace(/\/$/, "");

/** The discovery document's address (OpenID Connect Discovery §4). */
export const discoveryUrl = (issuer: string) => `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;

/** The callback address a provider must be told: Better Auth's /callback/<id>, under /api/auth. */
export const callbackUrl = (appUrl: string, id: string) => new URL(`/api/auth/callback/${encodeURIComponent(id)}`, appUrl).href;

interface Discovery {
  issuer: string;
  userinfo_endpoint?: string;
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, { headers: { accept: "application/json", ...headers }, redirect: "error", signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_PROVIDER_ANSWER_BYTES) throw new Error(`${url} answered more than ${MAX_PROVIDER_ANSWER_BYTES} bytes`);
  return JSON.parse(text);
}

/**
 * The provider's discovery document, when it answers in time and names the
 * configured issuer: Better Auth takes whatever issuer the document names,
 * and would then accept that issuer's ID tokens.
 */
export async function discover(provider: OidcProvider): Promise<Discovery> {
  const document = (await getJson(discoveryUrl(provider.issuer))) as Partial<Discovery> | null;
  if (!document || !sameIssuer(document.issuer, provider.issuer)) {
    throw new Error(`its discovery document names the issuer "${String(document?.issuer)}", not the configured "${provider.issuer}"`);
  }
  return document as Discovery;
}

/**
 * The group names the provider's groups claim gave in this sign-in (null:
 * no claim is read), kept for the session's hook (better-auth.ts): Better
 * Auth's state of the one request, read by the same callback that set it.
 */
export const claimedGroups = defineRequestState<string[] | null>(() => null);

type Tokens = Parameters<NonNullable<GenericOAuthConfig["getUserInfo"]>>[0];
type Claims = Record<string, unknown>;

/**
 * The person an ID token names. Better Auth has verified the token by the
 * time this runs (requireIdTokenVerification below); its issuer is checked
 * again against the configured one, and a sign-in without an ID token
 * (OAuth without OpenID) is no sign-in. Claims the token leaves out come
 * from the userinfo endpoint, for the same subject only (OIDC Core §5.3.2).
 */
async function userInfo(provider: OidcProvider, discovery: Discovery, tokens: Tokens, groupsClaim: string | undefined, log: (message: string) => void) {
  if (!tokens.idToken) {
    log(`the provider "${provider.id}" answered without an ID token`);
    return null;
  }
  let claims: Claims = decodeJwt(tokens.idToken);
  if (!sameIssuer(claims.iss, provider.issuer)) {
    log(`the provider "${provider.id}"'s ID token names the issuer "${String(claims.iss)}", not "${provider.issuer}"`);
    return null;
  }
  const lacking = typeof claims.email !== "string" || (groupsClaim !== undefined && !(groupsClaim in claims));
  if (lacking && discovery.userinfo_endpoint && tokens.accessToken) {
    const more = (await getJson(discovery.userinfo_endpoint, { authorization: `Bearer ${tokens.accessToken}` })) as Claims;
    if (more.sub !== claims.sub) {
      log(`the provider "${provider.id}"'s userinfo names another subject than its ID token`);
      return null;
    }
    claims = { ...more, ...claims };
  }
  // No claim at all is no groups: the memberships it made before go.
  if (groupsClaim !== undefined) await claimedGroups.set(groupsOfClaim(claims[groupsClaim]));
  const email = typeof claims.email === "string" && claims.email.length <= 320 ? claims.email : undefined;
  const named = [claims.name, claims.preferred_username, email?.split("@")[0]].find((value) => typeof value === "string" && value.trim());
  return {
    ...claims,
    id: String(claims.sub),
    sub: String(claims.sub),
    email,
    // Only an explicit true: a provider that does not say has not verified it.
    emailVerified: claims.email_verified === true,
    name: String(named ?? "").trim().slice(0, 100),
    image: typeof claims.picture === "string" ? claims.picture : undefined,
  };
}

/** Better Auth's generic OAuth plugin, one entry per provider whose discovery answered. */
/** A configured provider with the discovery document it answered. */
export interface DiscoveredProvider {
  provider: OidcProvider;
  discovery: Discovery;
}

/** `groupsClaim`: the claim whose group names are read at each sign-in (AUTH_OIDC_GROUPS_CLAIM), if any. */
export function oidcPlugin(providers: DiscoveredProvider[], groupsClaim: string | undefined, log: (message: string) => void) {
  return genericOAuth({
    config: providers.map(({ provider, discovery }) => ({
      providerId: provider.id,
      name: provider.label,
      discoveryUrl: discoveryUrl(provider.issuer),
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      // RFC 6749 §2.3.1: every authorization server supports HTTP Basic for a client secret.
      authentication: "basic" as const,
      scopes: ["openid", "email", "profile"],
      pkce: true,
      // Without the provider's issuer and keys Better Auth would skip the ID token's check: such a provider is left out.
      requireIdTokenVerification: true,
      getUserInfo: (tokens: Tokens) => userInfo(provider, discovery, tokens, groupsClaim, log),
    })),
  });
}

import "server-only";
import { redirect } from "next/navigation";
import type { Accounts } from "./accounts";
import { oidcErrorMessage } from "./oidc-errors";
import { pageRequest } from "./page-request";

/** Where to go after signing in: a path of this site only (never `//elsewhere` or a full URL), else home. */
export function safeNext(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  return value && /^\/(?![/\\])/.test(value) ? value : "/";
}

/**
 * What the sign-in and sign-up pages need to know, or a redirect: home when
 * nobody signs in here (another mode) or the visitor is signed in already.
 */
export async function signInPageState(accounts: Accounts) {
  if (accounts.mode !== "accounts") redirect("/");
  const identity = await accounts.identify(await pageRequest());
  if (identity?.person) redirect("/");
  return {
    anyone: await accounts.people().anyone(),
    guests: accounts.guests,
    guest: identity?.guest ?? false,
    // Ids and labels only: the issuers and secrets stay on the server.
    oidc: accounts.oidcProviders.map(({ id, label }) => ({ id, label })),
    mail: accounts.mail !== undefined,
  };
}

/**
 * Why a sign-in brought its browser back to the sign-in page (its ?error=,
 * set by Better Auth or lib/accounts/auth-route.ts): a mailed link that was
 * used or expired, or an OIDC sign-in's refusal (lib/accounts/oidc-errors.ts).
 */
export function signInRefusal(error: string | string[] | undefined): string | null {
  const code = Array.isArray(error) ? error[0] : error;
  if (code === "INVALID_TOKEN") return "This sign-in link has been used or has expired. Ask for a new one.";
  return oidcErrorMessage(code);
}

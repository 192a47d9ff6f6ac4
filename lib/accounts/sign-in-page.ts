import "server-only";
import { redirect } from "next/navigation";
import type { Accounts } from "./accounts";
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
  return { anyone: await accounts.people().anyone(), guests: accounts.guests, guest: identity?.guest ?? false, mail: accounts.mail !== undefined };
}

/** Why a sign-in link brought its opener back to the sign-in page (its ?error=, set by lib/accounts/auth-route.ts or Better Auth). */
export function signInLinkRefusal(error: string | string[] | undefined): string | null {
  const code = Array.isArray(error) ? error[0] : error;
  switch (code) {
    case undefined:
      return null;
    case "INVALID_TOKEN":
      return "This sign-in link has been used or has expired. Ask for a new one.";
    case "PENDING_APPROVAL":
      return "Your account is waiting for an admin's approval. You can sign in once they approve it.";
    case "ACCOUNT_DISABLED":
      return "This account has been disabled. Ask an admin.";
    default:
      return "This sign-in link did not sign you in. Ask for a new one, or sign in with your password.";
  }
}

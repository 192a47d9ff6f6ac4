import type { SIGNUP_POLICIES } from "./settings";

/** What a sign-up knows when it is decided. */
export interface SignUpFacts {
  /** This sign-up claimed the install's first account. */
  first: boolean;
  /** The invite the browser carries: none, one this sign-up just used up, or one that no longer opens sign-up. */
  invite: "none" | "valid" | "used";
  policy: (typeof SIGNUP_POLICIES)[number];
  /** Emails and domains (lowercase; a domain with or without its @). */
  allowedEmails: readonly string[];
  email: string;
  /** The sign-up came through an OIDC provider; `emailVerified`: the provider said it verified the email. */
  oidc?: { emailVerified: boolean };
}

export type SignUpDecision = { role: "admin" | "member"; status: "active" | "pending" } | { refused: string };

/** Whether `email` is listed, itself or by its domain. */
export function allowedEmail(email: string, allowed: readonly string[]): boolean {
  const lower = email.toLowerCase();
  const domain = lower.slice(lower.lastIndexOf("@") + 1);
  return allowed.some((entry) => entry === lower || entry.replace(/^@/, "") === domain);
}

/**
 * Who a new account is: the first is the admin; an invite makes a member
 * whatever the policy; then open lets anyone in, allowlist only the listed,
 * and invite makes a pending account an admin approves (an OIDC sign-up
 * too: it is kept, pending, and gets no session until then).
 */
export function signUpDecision({ first, invite, policy, allowedEmails, email, oidc }: SignUpFacts): SignUpDecision {
  if (first) return { role: "admin", status: "active" };
  if (invite === "valid") return { role: "member", status: "active" };
  if (invite === "used") return { refused: "This invite link has been used or has expired. Ask for a new one." };
  if (policy === "open") return { role: "member", status: "active" };
  if (policy === "allowlist") {
    // An email a provider has not verified is whatever its user typed there: it cannot stand for a listed address.
    if (oidc && !oidc.emailVerified && allowedEmail(email, allowedEmails)) {
      return { refused: "Your identity provider has not verified this email, so it cannot be matched to who may sign up. Ask an admin for an invite." };
    }
    return allowedEmail(email, allowedEmails) ? { role: "member", status: "active" } : { refused: "This email may not sign up here. Ask an admin for an invite." };
  }
  return { role: "member", status: "pending" };
}

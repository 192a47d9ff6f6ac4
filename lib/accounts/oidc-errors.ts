// What the sign-in page says when an OIDC sign-in comes back refused: Better
// Auth sends the browser to /sign-in?error=<code>. Only the code is read,
// each to a sentence of ours: the error_description beside it is whatever
// the provider (or whoever made the link) wrote, and is never shown.

const MESSAGES: Record<string, string> = {
  PENDING_APPROVAL: "Your account is waiting for an admin's approval. You can sign in once they approve it.",
  ACCOUNT_DISABLED: "This account has been disabled. Ask an admin.",
  SIGN_UP_REFUSED: "You may not make an account here with this email. Ask an admin for an invite.",
  account_not_linked:
    "An account with this email exists already, and it is not linked to this provider. Sign in with your password instead.",
  access_denied: "The sign-in was cancelled at the provider.",
  state_mismatch: "The sign-in could not be matched to this browser, or it took too long. Start again from this page.",
  state_not_found: "The sign-in could not be matched to this browser, or it took too long. Start again from this page.",
  state_invalid: "The sign-in could not be matched to this browser, or it took too long. Start again from this page.",
  issuer_mismatch: "The provider that answered is not the one this server trusts. Ask an admin.",
  nonce_binding_missing: "The sign-in could not be matched to this browser. Start again from this page.",
  unable_to_get_user_info: "The provider's answer could not be verified, so nobody was signed in. Ask an admin.",
  invalid_code: "The provider did not confirm the sign-in. Start again from this page.",
  email_not_found: "The provider did not say your email, which this server needs. Ask an admin.",
};

/** The sentence for an OIDC sign-in's error code, or null when there is none. */
export function oidcErrorMessage(code: string | string[] | undefined): string | null {
  const value = Array.isArray(code) ? code[0] : code;
  if (!value) return null;
  return Object.hasOwn(MESSAGES, value) ? MESSAGES[value] : "Signing in did not work. Try again, or ask an admin.";
}

/** Better Auth's session cookie (lib/accounts/better-auth.ts's cookiePrefix), named __Secure-… over TLS. */
export const SESSION_COOKIE = "threadline.session_token";

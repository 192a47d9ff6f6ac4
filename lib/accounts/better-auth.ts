import "server-only";
import { createHmac, randomUUID } from "node:crypto";
import type pg from "pg";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { PostgresDialect } from "kysely";
import { APIError } from "better-auth/api";
import { passkey } from "@better-auth/passkey";
import { magicLink } from "better-auth/plugins/magic-link";
import { ownHost } from "@/lib/http/request-origin";
import { claimedGroups, oidcPlugin } from "./oidc";

// Sign-in is Better Auth's: password hashing (scrypt), sessions, the OIDC and
// passkey flows, tokens in one-time links. It keeps its rows in the auth_*
// tables (packages/history/db/tables/), through the column names below; what
// Threadline adds (who may sign up, who may hold a session) comes in through
// its hooks, so no path around them makes an account or a session.

/** camelCase field → snake_case column, for the fields Better Auth names. */
const columns = (...fields: string[]) => Object.fromEntries(fields.map((field) => [field, field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]));

/** What Threadline decides inside Better Auth's flows. */
export interface AccountHooks {
  /** Before a person's row is written: their role and status, or an APIError that stops the sign-up. */
  beforeSignUp(user: { email: string; emailVerified?: boolean }, request: Headers | undefined, oidc: boolean): Promise<{ role: string; status: string }>;
  /** After a person's row is written (the invite used, the first admin's browser data claimed). */
  afterSignUp(user: { id: string; email: string }, request: Headers | undefined): Promise<void>;
  /**
   * Before a session is made: throws an APIError when the person (of this
   * status, as the sign-up's own transaction sees it) may not hold one.
   * `signingUp`: the session of a sign-up (an error here would undo the
   * account with it).
   */
  beforeSession(userId: string, status: string | undefined, signingUp: boolean): Promise<void>;
  /** After a session is made (a guest's browser data claimed). */
  afterSession(userId: string, request: Headers | undefined): Promise<void>;
  /** After a session is made by an OIDC sign-in whose groups claim was read: the group names it gave. */
  afterGroupsClaim(userId: string, groups: readonly string[]): Promise<void>;
  /** After a password is reset (Better Auth has ended the person's sessions): the email's failed sign-ins are forgiven. */
  afterPasswordReset(user: { email: string }): Promise<void>;
}

/** The mails of sign-in (lib/accounts/account-mail.ts): each returns at once, and sends after the answer. */
export interface SignInMail {
  resetPassword(email: string, url: string): void;
  signInLink(email: string, url: string): void;
}

export interface AuthSettings {
  pool: pg.Pool;
  /** The app's cookie-signing key; Better Auth's is derived from it. */
  secret: string;
  /** APP_URL, when set: otherwise each request's own origin. */
  appUrl: string | undefined;
  /** Whether the cookies are Secure (and __Secure- named): the request came over TLS. */
  https: boolean;
  hooks: AccountHooks;
  /** The OIDC providers to offer, each with the discovery document it answered (lib/accounts/oidc.ts). */
  oidc: Parameters<typeof oidcPlugin>[0];
  /** The claim whose group names are read at each OIDC sign-in (AUTH_OIDC_GROUPS_CLAIM). */
  groupsClaim: string | undefined;
  /** With SMTP_URL: password resets by mail, and sign-in links. */
  mail: SignInMail | undefined;
  /** How long a reset link works, and a sign-in link, in seconds. */
  linkSeconds: { reset: number; signIn: number };
}

/** Better Auth's key: its own, derived from the app's, so one setting (or none) covers both. */
const derivedSecret = (secret: string) => createHmac("sha256", secret).update("threadline better-auth").digest("base64url");

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export function authOptions({ pool, secret, appUrl, https, hooks, oidc, groupsClaim, mail, linkSeconds }: AuthSettings) {
  return {
    appName: "Threadline",
    basePath: "/api/auth",
    baseURL: appUrl,
    // Without APP_URL, the origin a browser addressed (its Host, as a TLS proxy passes it on) is this app's own, as proxy.ts's same-origin rule has it.
    trustedOrigins: appUrl ? [] : (request?: Request) => (request ? [`${https ? "https" : "http"}://${ownHost(request.headers, request.url)}`] : []),
    secret: derivedSecret(secret),
    // No transaction of Better Auth's own around a sign-up: its hooks (the first admin, an invite, a guest's threads
    // adopted) query the same pool, and the embedded Postgres has one connection, which that transaction would hold
    // while the hooks waited for it. The rows a sign-up writes are each whole; a session refused leaves the account.
    database: { dialect: new PostgresDialect({ pool }), type: "postgres", transaction: false },
    telemetry: { enabled: false },
    // Counted in Postgres by the route (lib/accounts/auth-limits.ts), across servers; Better Auth's own counts per process.
    rateLimit: { enabled: false },
    logger: {
      level: "warn",
      // Without APP_URL each request's own origin is the base, as intended.
      log: (level, message, ...args) => {
        if (message.includes("Base URL is not set")) return;
        console[level === "error" ? "error" : "warn"](`[auth] ${message}`, ...args);
      },
    },
    // A failed OIDC sign-in comes back to the sign-in page, which says why (lib/accounts/oidc-errors.ts).
    onAPIError: { errorURL: "/sign-in" },
    plugins: [
      passkey({
        // A passkey belongs to a domain: APP_URL's, or localhost (browsers refuse passkeys for a bare IP address).
        rpID: appUrl ? new URL(appUrl).hostname : "localhost",
        rpName: "Threadline",
        schema: {
          passkey: {
            modelName: "auth_passkeys",
            fields: { ...columns("publicKey", "userId", "deviceType", "backedUp", "createdAt"), credentialID: "credential_id" },
          },
        },
      }),
      ...(oidc.length > 0 ? [oidcPlugin(oidc, groupsClaim, (message) => console.error(`[auth] OIDC sign-in refused: ${message}`))] : []),
      // Sign-in links only for accounts that exist: a new account comes through the sign-up page,
      // with its name and under its policy, and nobody can make the server mail an address that has none.
      ...(mail
        ? [magicLink({ sendMagicLink: async ({ email, url }) => mail.signInLink(email, url), expiresIn: linkSeconds.signIn, disableSignUp: true, storeToken: "hashed" })]
        : []),
    ],
    emailAndPassword: {
      enabled: true,
      minPasswordLength: PASSWORD_MIN,
      maxPasswordLength: PASSWORD_MAX,
      autoSignIn: true,
      revokeSessionsOnPasswordReset: true,
      resetPasswordTokenExpiresIn: linkSeconds.reset,
      // Without it, /request-password-reset refuses every email alike; an admin's one-time link (accounts.ts) resets instead.
      sendResetPassword: mail ? async ({ user, url }) => mail.resetPassword(user.email, url) : undefined,
      onPasswordReset: async ({ user }) => hooks.afterPasswordReset(user),
    },
    session: {
      modelName: "auth_sessions",
      fields: columns("expiresAt", "createdAt", "updatedAt", "ipAddress", "userAgent", "userId"),
      expiresIn: 60 * 60 * 24 * 30,
      updateAge: 60 * 60 * 24,
    },
    user: {
      modelName: "auth_users",
      fields: columns("emailVerified", "createdAt", "updatedAt"),
      additionalFields: {
        role: { type: "string", input: false, defaultValue: "member" },
        status: { type: "string", input: false, defaultValue: "active" },
      },
    },
    account: {
      modelName: "auth_accounts",
      // An OIDC sign-in with the email of an account it is not linked to joins that account only when the provider
      // says the email is verified and the account's own email is verified too (Better Auth's rules, spelled out):
      // nobody takes over an account by naming its email at a provider, nor readies one for a victim's later sign-in.
      // Password accounts here never have a verified email, so such a sign-in is refused (docs/security.md).
      accountLinking: { enabled: true, trustedProviders: [], requireLocalEmailVerified: true, allowDifferentEmails: false },
      // A provider's access and refresh tokens are kept (Better Auth stores them) but never used: encrypted, a database dump does not hand them out.
      encryptOAuthTokens: true,
      fields: columns("accountId", "providerId", "userId", "accessToken", "refreshToken", "idToken", "accessTokenExpiresAt", "refreshTokenExpiresAt", "createdAt", "updatedAt"),
    },
    verification: {
      modelName: "auth_verifications",
      fields: columns("expiresAt", "createdAt", "updatedAt"),
    },
    advanced: {
      cookiePrefix: "threadline",
      useSecureCookies: https,
      database: { generateId: () => randomUUID() },
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user, context) => ({ data: { ...user, ...(await hooks.beforeSignUp(user, context?.headers, context?.path?.startsWith("/callback/") ?? false)) } }),
          after: async (user, context) => hooks.afterSignUp(user, context?.headers),
        },
      },
      session: {
        create: {
          before: async (session, context) => {
            // Read through Better Auth's adapter, as the sign-up that made the row reads it.
            const user = await context?.context.internalAdapter.findUserById(session.userId);
            await hooks.beforeSession(session.userId, (user as { status?: string } | null | undefined)?.status, context?.path === "/sign-up/email");
          },
          after: async (session, context) => {
            await hooks.afterSession(session.userId, context?.headers);
            // Only the OIDC callback reads a groups claim; any other sign-in leaves the memberships it made.
            const groups = context?.path?.startsWith("/callback/") ? await claimedGroups.get() : null;
            if (groups) await hooks.afterGroupsClaim(session.userId, groups);
          },
        },
      },
    },
  } satisfies BetterAuthOptions;
}

export type Auth = ReturnType<typeof betterAuth<ReturnType<typeof authOptions>>>;

export function makeAuth(settings: AuthSettings): Auth {
  return betterAuth(authOptions(settings));
}

export { APIError };

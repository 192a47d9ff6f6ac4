import "server-only";
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { AppError } from "@threadline/history/errors";
import { IDENTITY_COOKIE, readCookie, verifyIdentity } from "@/lib/auth/identity";
import { isHttps } from "@/lib/auth/identity-cookie";
import type { SessionSecret } from "@/lib/auth/secret";
import { peerAddress } from "@/lib/http/client-address.mjs";
import { publicOrigin } from "@/lib/http/request-origin";
import { once } from "@/lib/wing";
import type { Invite, Me, Person, PersonChange, ResetLink } from "@/lib/protocol/accounts";
import type { RateLimits } from "@/lib/rate-limit";
import { AccountMail, RESET_LINK_SECONDS, SIGN_IN_LINK_SECONDS } from "./account-mail";
import { APIError, makeAuth, type AccountHooks, type Auth } from "./better-auth";
import { AuthInstances } from "./auth-instances";
import type { OidcProvider } from "./oidc-settings";
import { smtpMailer } from "./mail";
import { People } from "./people";
import type { AccountsSettings } from "./settings";
import { signUpDecision } from "./sign-up-policy";
import { trustedAddresses } from "./trusted-proxies";

// Who a request is, in the install's AUTH_MODE: a signed-in person (accounts:
// Better Auth's session, read from the database on every request, so a
// disabled person's next request is refused), the person an identity-aware
// proxy names (proxy: only from the proxy's own addresses), or the browser's
// own identity (open). A guest (accounts with AUTH_GUESTS) is a browser
// identity until they sign in, when everything it made becomes theirs.

export const INVITE_COOKIE = "threadline_invite";
/** Passkeys one person may have. */
export const MAX_PASSKEYS = 20;

export interface Identity {
  /** What every table's owner column holds for them. */
  owner: string;
  person: Person | null;
  guest: boolean;
}

export interface AccountsDeps {
  settings: AccountsSettings;
  pool(): pg.Pool;
  secret: SessionSecret;
  /** Moves everything `from` owns to `to`, in one transaction (the thread repository's adopt, through every wing). */
  adopt(from: string, to: string): Promise<void>;
  /** Stops every turn of the owner's that is running, on whichever server. */
  stopTurnsOf(owner: string): Promise<void>;
  /** Makes the person's memberships from the groups claim those of the groups it names (the budgets wing's). */
  setClaimedGroups(person: string, names: readonly string[]): Promise<void>;
  /** The limits counted in Postgres: mails per email, and the failed sign-ins a reset forgives. */
  limits(): Pick<RateLimits, "mayMail" | "signInSucceeded">;
}

/** A reset token as Better Auth's /request-password-reset stores it (an auth_verifications row's identifier, its value the person's id). */
const resetIdentifier = (token: string) => `reset-password:${token}`;

export class Accounts {
  readonly people: () => People;
  private readonly instances: AuthInstances;
  private readonly trusted: (address: string | undefined) => boolean;
  /** With SMTP_URL: the reset and sign-in mails. */
  readonly mail: AccountMail | undefined;

  constructor(private readonly deps: AccountsDeps) {
    this.people = once(() => new People(deps.pool()));
    this.trusted = trustedAddresses(deps.settings.proxyTrusted);
    this.instances = new AuthInstances(deps.settings.oidcProviders, async (https, oidc) =>
      makeAuth({
        pool: deps.pool(),
        secret: await deps.secret(),
        appUrl: deps.settings.APP_URL,
        https,
        hooks: this.hooks,
        oidc,
        groupsClaim: deps.settings.AUTH_OIDC_GROUPS_CLAIM,
        mail: this.mail,
        linkSeconds: { reset: RESET_LINK_SECONDS, signIn: SIGN_IN_LINK_SECONDS },
      }),
    );
    const { mail, APP_URL } = deps.settings;
    if (mail && APP_URL) {
      this.mail = new AccountMail({
        mailer: smtpMailer(mail),
        appUrl: APP_URL,
        mayMail: (email) => deps.limits().mayMail(email),
        accountOf: (email) => this.people().byEmail(email),
      });
    }
  }

  get mode() {
    return this.deps.settings.AUTH_MODE;
  }

  /** Whether visitors may chat as guests before they sign in. */
  get guests(): boolean {
    return this.mode === "accounts" && this.deps.settings.AUTH_GUESTS;
  }

  /** Better Auth for requests over TLS or not: the cookies' Secure flag (and __Secure- name) differ. */
  auth(https: boolean): Promise<Auth> {
    return this.instances.get(https);
  }

  /** Better Auth with the OIDC provider `id` ready, or null while it is away. */
  oidcAuth(https: boolean, id: string): Promise<Auth | null> {
    return this.instances.withProvider(https, id);
  }

  /** The OIDC providers people may sign in through (their buttons on the sign-in page). */
  get oidcProviders(): readonly OidcProvider[] {
    return this.deps.settings.oidcProviders;
  }

  /** Whether requests are served over TLS: APP_URL says so when set, else the request. */
  https(request: Request): boolean {
    const { APP_URL } = this.deps.settings;
    return APP_URL ? APP_URL.startsWith("https:") : isHttps(request);
  }

  /** Who sent `request`, or null when nobody is signed in (a 401 for the caller to give). */
  async identify(request: Request): Promise<Identity | null> {
    switch (this.mode) {
      case "open": {
        const owner = await this.browserIdentity(request.headers);
        return owner ? { owner, person: null, guest: false } : null;
      }
      case "proxy":
        return this.fromProxy(request);
      case "accounts": {
        const auth = await this.auth(this.https(request));
        const session = await auth.api.getSession({ headers: request.headers, query: { disableRefresh: true } });
        if (session) {
          const { id, name, email, role, status, createdAt } = session.user;
          // A session is never made for someone pending or disabled, and disabling ends theirs; this is the belt to those braces.
          if (status !== "active") return null;
          return { owner: id, person: { id, name, email, role: role as Person["role"], status, createdAt: createdAt.toISOString() }, guest: false };
        }
        if (!this.deps.settings.AUTH_GUESTS) return null;
        const guest = await this.browserIdentity(request.headers);
        return guest ? { owner: guest, person: null, guest: true } : null;
      }
    }
  }

  /** The owner id of `request`'s person; a 401 AppError when there is none. */
  async requireOwner(request: Request): Promise<string> {
    const identity = await this.identify(request);
    if (identity) return identity.owner;
    if (this.mode === "open") throw new AppError("unauthorized:identity", "Your session cookie is missing or invalid. Reload the page.");
    if (this.mode === "proxy") throw new AppError("unauthorized:proxy", "The sign-in proxy in front of this server did not say who you are.");
    throw new AppError("unauthorized:session", "You are not signed in. Sign in and try again.");
  }

  /**
   * The browser identity of `request` (open mode, or a guest), for what only
   * a browser identity does: carry itself to another browser by a device
   * link. A signed-in person signs in on the other device instead: a link
   * carrying their id would make a cookie that no sign-out or disabling ends.
   */
  async requireBrowserIdentity(request: Request): Promise<string> {
    const identity = await this.identify(request);
    if (!identity) return this.requireOwner(request);
    if (identity.person) throw new AppError("not_found:device_links", "Device links carry a browser's identity; with an account, sign in on the other device instead.");
    return identity.owner;
  }

  /** The signed-in admin of `request`: a 401 for nobody, a 403 for anyone else. */
  async requireAdmin(request: Request): Promise<Person> {
    const identity = await this.identify(request);
    if (!identity?.person) await this.requireOwner(request);
    if (identity?.person?.role !== "admin") throw new AppError("forbidden:admin", "Only an admin may do this.");
    return identity.person;
  }

  async me(request: Request): Promise<Me> {
    const identity = await this.identify(request);
    const person = identity?.person;
    return {
      user: person ? { id: person.id, name: person.name, email: person.email, role: person.role } : null,
      guest: identity?.guest ?? false,
      mode: this.mode,
    };
  }

  /** An admin's change to a person: a disabled person's sessions end with it, and their running turns stop. */
  async change(admin: Person, id: string, action: PersonChange["action"]): Promise<Person> {
    const people = this.people();
    switch (action) {
      case "approve":
        return people.approve(id);
      case "enable":
        return people.enable(id);
      case "make-admin":
        return people.setRole(id, "admin");
      case "unmake-admin":
        return people.setRole(id, "member");
      case "disable": {
        const person = await people.disable(admin.id, id);
        await this.deps.stopTurnsOf(id);
        return person;
      }
    }
  }

  /** A new invite link, for `admin` to hand to someone: it makes one account, within a week. */
  async invite(admin: Person, request: Request): Promise<Invite> {
    const { code, expiresAt } = await this.people().invite(admin.id);
    return { url: new URL(`/invite/${code}`, this.base(request)).href, expiresAt };
  }

  /**
   * A one-time link that sets a new password for person `id`, for an admin to
   * hand over (the way in without mail): a token stored as Better Auth's own
   * reset stores one, so /reset-password and /api/auth/reset-password take it
   * like a mailed one; single-use, an hour's life. It replaces the person's
   * earlier reset links, so an admin cannot pile them up.
   */
  async resetLink(id: string, request: Request): Promise<ResetLink> {
    if (this.mode !== "accounts") throw new AppError("not_found:auth", `Nobody signs in with a password here: this server runs with AUTH_MODE=${this.mode}.`);
    const people = this.people();
    const person = await people.get(id);
    if (!person) throw new AppError("not_found:person", "There is no such person.");
    if (person.status === "disabled") throw new AppError("conflict:person", `${person.email} is disabled: enable them before resetting their password.`);
    const { internalAdapter } = await (await this.auth(this.https(request))).$context;
    await people.endResetLinks(id);
    const token = randomBytes(32).toString("base64url");
    const expiresAt = new Date(Date.now() + RESET_LINK_SECONDS * 1000);
    await internalAdapter.createVerificationValue({ identifier: resetIdentifier(token), value: id, expiresAt });
    const url = new URL("/reset-password", this.base(request));
    url.searchParams.set("token", token);
    return { url: url.href, expiresAt: expiresAt.toISOString() };
  }

  /** Whether a reset link's token still sets a password (the page says so before anyone types one). */
  async resetLinkOpen(token: string, request: Request): Promise<boolean> {
    if (this.mode !== "accounts" || token.length > 200) return false;
    const { internalAdapter } = await (await this.auth(this.https(request))).$context;
    const row = await internalAdapter.findVerificationValue(resetIdentifier(token));
    return row !== null && row !== undefined && row.expiresAt > new Date();
  }

  /** The address links name (lib/http/request-origin.ts). */
  private base(request: Request): string {
    return publicOrigin(request, this.deps.settings.APP_URL);
  }

  /** Refuses a passkey past the person's MAX_PASSKEYS (nobody needs more; each is a row and a choice at sign-in). */
  async refuseMorePasskeys(request: Request): Promise<void> {
    const identity = await this.identify(request);
    if (!identity?.person) throw new AppError("unauthorized:session", "You are not signed in. Sign in and try again.");
    if ((await this.people().passkeyCount(identity.person.id)) >= MAX_PASSKEYS) {
      throw new AppError("conflict:passkeys", `You have ${MAX_PASSKEYS} passkeys already. Remove one before you add another.`);
    }
  }

  /** Ends every session of `userId`'s (a pending sign-up's own). */
  async endSessions(userId: string): Promise<void> {
    await this.people().endSessions(userId);
  }

  /** The identity in a request's own browser cookie (open mode, a guest). */
  async browserIdentity(headers: Headers): Promise<string | null> {
    return verifyIdentity(readCookie(headers.get("cookie"), IDENTITY_COOKIE), await this.deps.secret());
  }

  private async fromProxy(request: Request): Promise<Identity | null> {
    const named = request.headers.get(this.deps.settings.AUTH_PROXY_HEADER)?.trim();
    if (!this.trusted(peerAddress(request))) {
      if (named) throw new AppError("forbidden:proxy", "This server believes who you are only from its sign-in proxy, and this request did not come from it.");
      return null;
    }
    if (!named) return null;
    if (named.length > 320 || /[\s<>]/.test(named)) throw new AppError("bad_request:proxy", "The sign-in proxy named someone by a value that is not an email or a user name.");
    const person = await this.people().fromProxy(named);
    if (person.status !== "active") throw new AppError("forbidden:disabled", "This account has been disabled. Ask an admin.");
    return { owner: person.id, person, guest: false };
  }

  /** What Threadline decides inside Better Auth's sign-up and sign-in. */
  private readonly hooks: AccountHooks = {
    beforeSignUp: async (user, headers, oidc) => {
      const people = this.people();
      const email = user.email.toLowerCase();
      const invite = readCookie(headers?.get("cookie") ?? null, INVITE_COOKIE);
      const decision = signUpDecision({
        first: await people.claimFirstAdmin(email),
        invite: invite === undefined ? "none" : (await people.useInvite(decodeURIComponent(invite))) ? "valid" : "used",
        policy: this.deps.settings.AUTH_SIGNUP,
        allowedEmails: this.deps.settings.allowedEmails,
        email,
        oidc: oidc ? { emailVerified: user.emailVerified === true } : undefined,
      });
      if ("refused" in decision) throw new APIError("FORBIDDEN", { message: decision.refused, code: "SIGN_UP_REFUSED" });
      return decision;
    },
    afterSignUp: async (user, headers) => {
      const invite = readCookie(headers?.get("cookie") ?? null, INVITE_COOKIE);
      if (invite) await this.people().inviteUsedBy(decodeURIComponent(invite), user.id);
      // An open install switched to accounts: its first account, made from the browser that used it, keeps what that browser made.
      if ((user as { role?: string }).role === "admin" && headers) await this.claimBrowserData(headers, user.id);
    },
    beforeSession: async (userId, seen, signingUp) => {
      const status = seen ?? (await this.people().status(userId));
      // A pending sign-up keeps its account: the route ends this session before it answers (lib/accounts/auth-route.ts).
      if (status === "pending" && signingUp) return;
      if (status === "pending") throw new APIError("FORBIDDEN", { message: "Your account is waiting for an admin's approval.", code: "PENDING_APPROVAL" });
      if (status === "disabled") throw new APIError("FORBIDDEN", { message: "This account has been disabled. Ask an admin.", code: "ACCOUNT_DISABLED" });
    },
    afterSession: async (userId, headers) => {
      if (this.deps.settings.AUTH_GUESTS && headers) await this.claimBrowserData(headers, userId);
    },
    afterGroupsClaim: (userId, groups) => this.deps.setClaimedGroups(userId, groups),
    // A lockout says "or reset the password": a reset ends it.
    afterPasswordReset: (user) => this.deps.limits().signInSucceeded(user.email),
  };

  /** Everything the browser's own identity made becomes `userId`'s. */
  private async claimBrowserData(headers: Headers, userId: string): Promise<void> {
    const browser = await this.browserIdentity(headers);
    if (browser) await this.deps.adopt(browser, userId);
  }
}

import "server-only";
import { isIP } from "node:net";
import { z } from "zod";
import { fail, flag, slice, text, url, wholeNumber, type SettingsOf } from "@/lib/env";
import { MAIL_ADDRESS, mailSettings } from "./mail-settings";
import { oidcProviders } from "./oidc-settings";

export const AUTH_MODES = ["accounts", "proxy", "open"] as const;
export const SIGNUP_POLICIES = ["invite", "allowlist", "open"] as const;

/** A list of values separated by commas or spaces, blanks dropped. */
const list = (value: string | undefined) => (value ?? "").split(/[\s,]+/).filter(Boolean);

/** An address or a network in CIDR notation (IPv4 or IPv6). */
function isAddressOrNetwork(entry: string): boolean {
  const [address, bits, ...rest] = entry.split("/");
  if (rest.length > 0) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

/** An email address (somebody@example.org) or a whole domain (example.org, or @example.org). */
const isEmailOrDomain = (entry: string) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(entry) || /^@?[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(entry);

/**
 * Who may come in, and how they say who they are: accounts (sign-in
 * required; the first account is the admin), a trusted proxy's header, or
 * the open browser identity of a one-person install.
 */
export const accountsSettings = slice({
  shape: {
    /** accounts: sign-in required; proxy: an identity-aware proxy names the person; open: a browser identity per visitor, no sign-in. */
    AUTH_MODE: z.enum(AUTH_MODES, { message: 'must be "accounts", "proxy" or "open"' }).default("accounts").describe("sign-in mode"),
    /** Who may make an account after the first: an admin's invite (or approval), the emails and domains listed, or anyone. */
    AUTH_SIGNUP: z.enum(SIGNUP_POLICIES, { message: 'must be "invite", "allowlist" or "open"' }).default("invite").describe("sign-up policy"),
    /** The emails and domains that may sign up under AUTH_SIGNUP=allowlist, separated by commas. */
    AUTH_ALLOWED_EMAILS: text.optional().describe("emails and domains that may sign up"),
    /** Whether a visitor may chat as a guest before signing in (accounts mode). */
    AUTH_GUESTS: flag(false).describe("guests"),
    /** The header an identity-aware proxy names the person in (an email). */
    AUTH_PROXY_HEADER: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,100}$/, "must be a header name")
      .default("X-Forwarded-Email")
      .describe("proxy identity header"),
    /** The addresses (or CIDR networks) of the proxy: the header is believed only from these. */
    AUTH_PROXY_TRUSTED: text.optional().describe("proxy addresses"),
    /** The address people reach the app at (https://chat.example.org): links in invites and mails, OIDC callbacks. */
    APP_URL: url.optional().describe("public address"),
    /** An OpenID Connect provider's issuer (https://keycloak.example.org/realms/team): its sign-in button on the sign-in page. */
    AUTH_OIDC_ISSUER: url.optional().describe("OIDC issuer"),
    /** The client id the provider gave this app. */
    AUTH_OIDC_CLIENT_ID: text.max(500, "must be at most 500 characters").optional().describe("OIDC client id"),
    /** The client secret the provider gave this app. */
    AUTH_OIDC_CLIENT_SECRET: text.max(2000, "must be at most 2000 characters").optional().describe("OIDC client secret"),
    /** The sign-in button's name ("Sign in with <label>"); unset: the issuer's host. */
    AUTH_OIDC_LABEL: text.max(60, "must be at most 60 characters").optional().describe("OIDC button label"),
    /** Several OIDC providers, as JSON: [{"id","label","issuer","clientId","clientSecret"}]. */
    AUTH_OIDC_PROVIDERS: text.optional().describe("OIDC providers (JSON)"),
    /** The claim (an array of names, or one string of them) whose values put a person in the budget groups of those names at each OIDC sign-in. */
    AUTH_OIDC_GROUPS_CLAIM: z
      .string()
      .regex(/^[\x21-\x7e]{1,100}$/, "must be a claim name (1 to 100 characters, no spaces)")
      .optional()
      .describe("OIDC groups claim"),
    /** Failed sign-ins of one account before it is locked for a quarter of an hour. */
    AUTH_LOCKOUT_FAILURES: wholeNumber(1, 1000).default(10).describe("failed sign-ins before a lockout"),
    /** Sign-in, sign-up and reset requests per address per minute. */
    RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: wholeNumber(0, 999_999_999).default(30).describe("sign-in requests per address per minute"),
    /**
     * The mail server password resets and sign-in links go through:
     * smtp://user:password@host:587 (STARTTLS when offered) or smtps://…:465.
     * Read as text and checked in finish, which never repeats the value: it holds a password.
     */
    SMTP_URL: text.optional().describe("mail server"),
    /** The sender of those mails; unset: Threadline <no-reply@APP_URL's host>. */
    MAIL_FROM: z
      .string()
      .regex(MAIL_ADDRESS, "must be an address, ana@example.org or Name <ana@example.org>")
      .optional()
      .describe("mail sender"),
    /** The most one mail may take, connecting included, before it is given up (and logged). */
    SMTP_TIMEOUT_SECONDS: wholeNumber(1, 600).default(10).describe("mail timeout, seconds"),
    /** Mails (reset and sign-in links) one email may be sent per hour, whoever asks; 0: off. */
    RATE_LIMIT_MAILS_PER_HOUR_PER_EMAIL: wholeNumber(0, 999_999).default(5).describe("mails per email per hour"),
  },
  finish(settings) {
    const allowed = list(settings.AUTH_ALLOWED_EMAILS).map((entry) => entry.toLowerCase());
    const wrongEmail = allowed.find((entry) => !isEmailOrDomain(entry));
    if (wrongEmail) fail(`AUTH_ALLOWED_EMAILS must list emails or domains separated by commas; "${wrongEmail}" is neither.`);
    if (settings.AUTH_SIGNUP === "allowlist" && settings.AUTH_MODE === "accounts" && allowed.length === 0) {
      fail("AUTH_SIGNUP=allowlist needs AUTH_ALLOWED_EMAILS: the emails or domains that may sign up.");
    }
    const trusted = list(settings.AUTH_PROXY_TRUSTED);
    const wrongAddress = trusted.find((entry) => !isAddressOrNetwork(entry));
    if (wrongAddress) fail(`AUTH_PROXY_TRUSTED must list addresses or CIDR networks separated by commas; "${wrongAddress}" is neither.`);
    if (settings.AUTH_MODE === "proxy" && trusted.length === 0) {
      fail("AUTH_MODE=proxy needs AUTH_PROXY_TRUSTED: the proxy's addresses, the only ones whose header is believed.");
    }
    if (settings.AUTH_GUESTS && settings.AUTH_MODE !== "accounts") {
      fail(`AUTH_GUESTS=true needs AUTH_MODE=accounts: in ${settings.AUTH_MODE} mode nobody signs in, so nobody is a guest.`);
    }
    const providers = oidcProviders(settings);
    if (settings.AUTH_OIDC_GROUPS_CLAIM && providers.length === 0) {
      fail("AUTH_OIDC_GROUPS_CLAIM needs an OIDC provider (AUTH_OIDC_ISSUER or AUTH_OIDC_PROVIDERS): the claim is read at each sign-in through one.");
    }
    return { allowedEmails: allowed, proxyTrusted: trusted, oidcProviders: providers, mail: mailSettings(settings) };
  },
});

/** The accounts wing's configuration. */
export type AccountsSettings = SettingsOf<typeof accountsSettings>;

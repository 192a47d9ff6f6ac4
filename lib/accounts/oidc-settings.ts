import "server-only";
import { z } from "zod";
import { fail, url } from "@/lib/env";

/** One OpenID Connect provider people may sign in through. */
export interface OidcProvider {
  /** Its part of the callback address (/api/auth/callback/<id>) and of the accounts it makes. */
  id: string;
  /** The button's name: "Sign in with <label>". */
  label: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The id of the provider the single-provider variables (AUTH_OIDC_ISSUER …) describe. */
export const SINGLE_PROVIDER_ID = "oidc";
/** More buttons than anyone needs: the list is read at every start and shown on the sign-in page. */
export const MAX_OIDC_PROVIDERS = 20;

const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

const listed = z
  .array(
    z.strictObject({
      id: z.string().regex(ID, "must be 1 to 40 lowercase letters, digits or dashes"),
      label: z.string().trim().min(1).max(60).optional(),
      issuer: url,
      clientId: z.string().min(1).max(500),
      clientSecret: z.string().min(1).max(2000),
    }),
  )
  .max(MAX_OIDC_PROVIDERS, `lists at most ${MAX_OIDC_PROVIDERS} providers`);

interface OidcVariables {
  AUTH_MODE: string;
  APP_URL?: string;
  AUTH_OIDC_ISSUER?: string;
  AUTH_OIDC_CLIENT_ID?: string;
  AUTH_OIDC_CLIENT_SECRET?: string;
  AUTH_OIDC_LABEL?: string;
  AUTH_OIDC_PROVIDERS?: string;
}

/** The issuer's host, for a button nobody named. */
const hostOf = (issuer: string) => new URL(issuer).host;

function checkIssuer(issuer: string, variable: string) {
  const parsed = new URL(issuer);
  // The issuer is compared with the ID token's `iss` as written: a query or fragment makes it no issuer at all (OpenID Connect Discovery §3).
  if (parsed.search || parsed.hash) fail(`${variable} must be an issuer URL without a query or fragment, not "${issuer}".`);
}

/** The single-provider variables, when any is set: all three of issuer, client id and secret, or the one line naming what is missing. */
function single(settings: OidcVariables): OidcProvider[] {
  const { AUTH_OIDC_ISSUER: issuer, AUTH_OIDC_CLIENT_ID: clientId, AUTH_OIDC_CLIENT_SECRET: clientSecret, AUTH_OIDC_LABEL: label } = settings;
  if (!issuer && !clientId && !clientSecret && !label) return [];
  const missing = [!issuer && "AUTH_OIDC_ISSUER", !clientId && "AUTH_OIDC_CLIENT_ID", !clientSecret && "AUTH_OIDC_CLIENT_SECRET"].filter(Boolean);
  if (missing.length > 0) {
    fail(`Sign-in through an OIDC provider needs AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET together; ${missing.slice(0, -1).join(", ")}${missing.length > 1 ? " and " : ""}${missing.at(-1)} ${missing.length > 1 ? "are" : "is"} missing.`);
  }
  checkIssuer(issuer!, "AUTH_OIDC_ISSUER");
  return [{ id: SINGLE_PROVIDER_ID, label: label ?? hostOf(issuer!), issuer: issuer!, clientId: clientId!, clientSecret: clientSecret! }];
}

function several(json: string | undefined): OidcProvider[] {
  if (!json) return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    fail('AUTH_OIDC_PROVIDERS must be JSON: a list of {"id","label","issuer","clientId","clientSecret"}.');
  }
  const parsed = listed.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // The path names the entry and field; the value is never repeated (a client secret may be the one that is wrong).
    const where = issue.path.length > 0 ? ` (at ${issue.path.join(".")})` : "";
    fail(`AUTH_OIDC_PROVIDERS must be a list of {"id","label","issuer","clientId","clientSecret"}${where}: ${issue.message}.`);
  }
  return parsed.data!.map((entry, index) => {
    checkIssuer(entry.issuer, `AUTH_OIDC_PROVIDERS[${index}].issuer`);
    return { ...entry, label: entry.label ?? hostOf(entry.issuer) };
  });
}

/** The OIDC providers the variables describe, or the one line that says what is wrong with them. */
export function oidcProviders(settings: OidcVariables): OidcProvider[] {
  const providers = [...single(settings), ...several(settings.AUTH_OIDC_PROVIDERS)];
  if (providers.length === 0) return [];
  const ids = new Set<string>();
  for (const { id } of providers) {
    if (ids.has(id)) fail(`AUTH_OIDC_PROVIDERS lists the id "${id}" twice${id === SINGLE_PROVIDER_ID ? " (AUTH_OIDC_ISSUER's provider is \"oidc\")" : ""}: each provider needs an id of its own.`);
    ids.add(id);
  }
  if (settings.AUTH_MODE !== "accounts") fail(`Sign-in through an OIDC provider needs AUTH_MODE=accounts: in ${settings.AUTH_MODE} mode nobody signs in here.`);
  // The provider sends people back to the callback address it was told: it must not depend on the Host a request came with.
  if (!settings.APP_URL) fail("Sign-in through an OIDC provider needs APP_URL: the callback address (APP_URL/api/auth/callback/<id>) the provider sends people back to.");
  return providers;
}

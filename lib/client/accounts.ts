// The sign-in pages' and the admin's calls: Better Auth's own endpoints
// (/api/auth/*, whose refusals are `{ code, message }`) and Threadline's
// (`{ error: { code, message } }`). Every failure is an Error whose message can
// be shown as is.
import type { Invite, Person, PersonChange, ResetLink } from "@/lib/protocol/accounts";

export async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      cache: "no-store",
      headers: init.body !== undefined ? { "content-type": "application/json" } : undefined,
    });
  } catch {
    throw new Error("Could not reach the server. Check your connection.");
  }
  const body = (await response.json().catch(() => null)) as { message?: string; error?: { message?: string } } | null;
  if (!response.ok) throw new Error(body?.error?.message ?? body?.message ?? `The server answered ${response.status}.`);
  return body as T;
}

const post = <T>(path: string, body: unknown) => call<T>(path, { method: "POST", body: JSON.stringify(body) });

export const signIn = (email: string, password: string) => post("/api/auth/sign-in/email", { email, password });

/**
 * Starts a sign-in through the OIDC provider `provider`: the address to send
 * the browser to (the provider's sign-in page). It comes back to `next`, or to
 * the sign-in page with ?error= when it fails.
 */
export async function startOidcSignIn(provider: string, next: string): Promise<string> {
  return (await post<{ url: string }>("/api/auth/sign-in/social", { provider, callbackURL: next, errorCallbackURL: "/sign-in" })).url;
}

export const signUp = (name: string, email: string, password: string) => post("/api/auth/sign-up/email", { name, email, password });

export const signOut = () => post("/api/auth/sign-out", {});

/** Asks for a reset link by mail: the answer is the same whether or not an account has the email. */
export const requestPasswordReset = (email: string) => post("/api/auth/request-password-reset", { email, redirectTo: "/reset-password" });

/** Sets a new password with a reset link's token; every session of the person's ends. */
export const resetPassword = (token: string, newPassword: string) => post("/api/auth/reset-password", { token, newPassword });

/** Asks for a sign-in link by mail, back to `next` once it is opened: the answer is the same for any email. */
export const requestSignInLink = (email: string, next: string) => post("/api/auth/sign-in/magic-link", { email, callbackURL: next });

/** A browser identity to chat with before signing up (where guests are allowed). */
export const continueAsGuest = () => post("/api/guest", {});

export async function listPeople(): Promise<Person[]> {
  return (await call<{ people: Person[] }>("/api/admin/people")).people;
}

export async function changePerson(id: string, action: PersonChange["action"]): Promise<Person> {
  return (await call<{ person: Person }>(`/api/admin/people/${encodeURIComponent(id)}`, { method: "PATCH", body: JSON.stringify({ action }) })).person;
}

export async function makeInvite(): Promise<Invite> {
  return (await post<{ invite: Invite }>("/api/admin/invites", {})).invite;
}

/** A one-time link that sets the person's password, for the admin to hand over. */
export async function makeResetLink(id: string): Promise<ResetLink> {
  return (await post<{ link: ResetLink }>(`/api/admin/people/${encodeURIComponent(id)}/reset-link`, {})).link;
}

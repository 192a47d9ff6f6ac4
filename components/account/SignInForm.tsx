"use client";

import { useState, type FormEvent } from "react";
import { continueAsGuest, signIn } from "@/lib/client/accounts";
import { AuthError, AuthField, primaryButton, secondaryButton, textLink } from "./AuthField";
import { OidcButtons, type OidcChoice } from "./OidcButtons";

/**
 * The sign-in page: email and password, a button per OIDC provider (with why
 * the last OIDC sign-in failed, when it came back here refused); a guest's way
 * in where guests may chat.
 */
export function SignInForm({ next, guests, oidc, oidcError }: { next: string; guests: boolean; oidc: readonly OidcChoice[]; oidcError: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      await signIn(String(form.get("email")), String(form.get("password")));
      window.location.assign(next);
    } catch (reason) {
      setError((reason as Error).message);
      setBusy(false);
    }
  }

  async function withPasskey() {
    setBusy(true);
    setError(null);
    try {
      await (await import("@/lib/client/passkeys")).signInWithPasskey();
      window.location.assign(next);
    } catch (reason) {
      setError((reason as Error).message);
      setBusy(false);
    }
  }

  async function asGuest() {
    setBusy(true);
    setError(null);
    try {
      await continueAsGuest();
      window.location.assign("/");
    } catch (reason) {
      setError((reason as Error).message);
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Sign in</h1>
      <form onSubmit={submit} className="flex flex-col gap-3">
        <AuthField label="Email" name="email" type="email" autoComplete="username webauthn" required autoFocus />
        <AuthField label="Password" name="password" type="password" autoComplete="current-password" required />
        <AuthError message={error} />
        <button type="submit" disabled={busy} className={primaryButton}>
          Sign in
        </button>
      </form>
      <button type="button" onClick={withPasskey} disabled={busy} className={secondaryButton}>
        Sign in with a passkey
      </button>
      <OidcButtons providers={oidc} next={next} error={oidcError} />
      {guests && (
        <button type="button" onClick={asGuest} disabled={busy} className={secondaryButton}>
          Continue as guest
        </button>
      )}
      <p className="text-sm text-neutral-600 dark:text-neutral-300">
        No account yet?{" "}
        <a href="/sign-up" className={textLink}>
          Create one
        </a>
      </p>
    </div>
  );
}

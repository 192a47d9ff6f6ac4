"use client";

import { useRef, useState, type FormEvent } from "react";
import { continueAsGuest, requestSignInLink, signIn } from "@/lib/client/accounts";
import { AuthError, AuthField, AuthNotice, primaryButton, secondaryButton, textLink } from "./AuthField";
import { OidcButtons, type OidcChoice } from "./OidcButtons";
import { useAuthAction } from "./useAuthAction";

/**
 * The sign-in page: email and password, "Forgot password?", a passkey, a
 * button per OIDC provider, a sign-in link by mail where the server sends
 * mail, and a guest's way in where guests may chat. `refusal`: why a sign-in
 * (through a provider or a mailed link) brought someone back here.
 */
export function SignInForm({
  next,
  guests,
  oidc,
  mail,
  refusal,
}: {
  next: string;
  guests: boolean;
  oidc: readonly OidcChoice[];
  mail: boolean;
  refusal: string | null;
}) {
  const { busy, error, setError, run } = useAuthAction(refusal);
  const [linkSent, setLinkSent] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  /** Does `work`, then goes to `to` (the page leaves, so the buttons stay disabled until it does). */
  const thenGo = (work: () => Promise<unknown>, to: string) =>
    run(
      async () => {
        await work();
        window.location.assign(to);
      },
      { leaving: true },
    );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    void thenGo(() => signIn(String(fields.get("email")), String(fields.get("password"))), next);
  }

  const withPasskey = () => thenGo(async () => (await import("@/lib/client/passkeys")).signInWithPasskey(), next);

  // A guest goes where the sign-in was asked for too ("Continue this conversation" of a shared link, say).
  const asGuest = () => thenGo(continueAsGuest, next);

  /** The email field's address gets a link; the password field is not needed for it. */
  function emailLink() {
    const field = form.current?.elements.namedItem("email") as HTMLInputElement | null;
    if (!field?.value || !field.checkValidity()) {
      setError("Enter your email first, then ask for a link.");
      field?.focus();
      return;
    }
    void run(async () => {
      await requestSignInLink(field.value, next);
      setLinkSent(true);
    });
  }

  if (linkSent) {
    return (
      <div className="flex flex-col gap-4">
        <h1 className="text-xl font-semibold">Check your mail</h1>
        <AuthNotice>
          <p>If an account has this email, a sign-in link is on its way. It works once, within 15 minutes.</p>
          <p>
            <a href="/sign-in" className={textLink}>
              Back to sign in
            </a>
          </p>
        </AuthNotice>
      </div>
    );
  }

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Sign in</h1>
      <form ref={form} onSubmit={submit} className="flex flex-col gap-3">
        <AuthField label="Email" name="email" type="email" autoComplete="username webauthn" required maxLength={320} autoFocus />
        <AuthField label="Password" name="password" type="password" autoComplete="current-password" required maxLength={128} />
        <p className="-mt-1 text-right">
          <a href="/forgot-password" className={textLink}>
            Forgot password?
          </a>
        </p>
        <AuthError message={error} />
        <button type="submit" disabled={busy} className={primaryButton}>
          Sign in
        </button>
      </form>
      <button type="button" onClick={withPasskey} disabled={busy} className={secondaryButton}>
        Sign in with a passkey
      </button>
      <OidcButtons providers={oidc} next={next} />
      {mail && (
        <button type="button" onClick={emailLink} disabled={busy} className={secondaryButton}>
          Email me a sign-in link
        </button>
      )}
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

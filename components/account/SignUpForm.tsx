"use client";

import type { FormEvent } from "react";
import { signUp } from "@/lib/client/accounts";
import { AuthError, AuthField, PASSWORD_HINT, primaryButton, textLink } from "./AuthField";
import { OidcButtons, type OidcChoice } from "./OidcButtons";
import { useAuthAction } from "./useAuthAction";

/**
 * The sign-up page. The first account of an install is its admin, and the
 * page says so; after that, what happens depends on the install's policy
 * and on the invite the browser brought.
 */
export function SignUpForm({
  first,
  invite,
  policy,
  guest,
  oidc,
}: {
  first: boolean;
  invite: "none" | "open" | "expired";
  policy: "invite" | "allowlist" | "open";
  guest: boolean;
  /** The OIDC providers: signing in through one makes the account too (the invite the browser carries counts). */
  oidc: readonly OidcChoice[];
}) {
  const { busy, error, run } = useAuthAction();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void run(
      async () => {
        await signUp(String(form.get("name")), String(form.get("email")), String(form.get("password")));
        window.location.assign("/");
      },
      { leaving: true },
    );
  }

  const note = first
    ? "Nobody has an account here yet: create the first account. It is the admin, who lets everyone else in."
    : invite === "open"
      ? "You were invited: create your account."
      : invite === "expired"
        ? "This invite link has been used or has expired. Ask for a new one."
        : policy === "invite"
          ? "Without an invite, your account waits for an admin's approval."
          : policy === "allowlist"
            ? "Only the emails this server lists may sign up."
            : null;

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">{first ? "Create the first account" : "Create account"}</h1>
      {note && <p className="text-sm text-neutral-700 dark:text-neutral-200">{note}</p>}
      {guest && <p className="text-sm text-neutral-700 dark:text-neutral-200">Everything you made as a guest comes with you.</p>}
      <form onSubmit={submit} className="flex flex-col gap-3">
        <AuthField label="Name" name="name" autoComplete="name" required maxLength={100} autoFocus />
        <AuthField label="Email" name="email" type="email" autoComplete="email" required maxLength={320} />
        <AuthField label="Password" name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} hint={PASSWORD_HINT} />
        <AuthError message={error} />
        <button type="submit" disabled={busy} className={primaryButton}>
          Create account
        </button>
      </form>
      <OidcButtons providers={oidc} next="/" />
      {!first && (
        <p className="text-sm text-neutral-600 dark:text-neutral-300">
          Have an account?{" "}
          <a href="/sign-in" className={textLink}>
            Sign in
          </a>
        </p>
      )}
    </div>
  );
}

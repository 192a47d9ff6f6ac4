"use client";

import { useState, type FormEvent } from "react";
import { requestPasswordReset } from "@/lib/client/accounts";
import { AuthError, AuthField, AuthNotice, primaryButton, textLink } from "./AuthField";
import { useAuthAction } from "./useAuthAction";

const backToSignIn = (
  <p className="text-sm text-neutral-600 dark:text-neutral-300">
    <a href="/sign-in" className={textLink}>
      Back to sign in
    </a>
  </p>
);

/**
 * "Forgot password?": a reset link by mail where the server sends mail, else
 * the way through an admin. What it says after sending is the same whatever
 * the email (whether an account has it is not told here).
 */
export function ForgotPasswordForm({ mail }: { mail: boolean }) {
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useAuthAction();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void run(async () => {
      await requestPasswordReset(String(form.get("email")));
      setSent(true);
    });
  }

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Reset your password</h1>
      {!mail ? (
        <p className="text-sm text-neutral-700 dark:text-neutral-200">
          This server sends no mail. Ask one of its admins for a reset link: they make one on the People page, and it works once, within an hour.
        </p>
      ) : sent ? (
        <AuthNotice>
          <p>If an account has this email, a link to reset its password is on its way. It works once, within an hour.</p>
          <p>No mail? Look in your spam folder, or ask an admin of this server for a reset link.</p>
        </AuthNotice>
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-3">
          <p className="text-sm text-neutral-700 dark:text-neutral-200">Enter the email of your account, and we will mail it a link to set a new password.</p>
          <AuthField label="Email" name="email" type="email" autoComplete="email" required maxLength={320} autoFocus />
          <AuthError message={error} />
          <button type="submit" disabled={busy} className={primaryButton}>
            Send reset link
          </button>
        </form>
      )}
      {backToSignIn}
    </div>
  );
}

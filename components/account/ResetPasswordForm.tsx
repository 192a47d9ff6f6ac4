"use client";

import { useState, type FormEvent } from "react";
import { resetPassword } from "@/lib/client/accounts";
import { AuthError, AuthField, PASSWORD_HINT, AuthNotice, primaryButton, textLink } from "./AuthField";
import { useAuthAction } from "./useAuthAction";

/**
 * A reset link's page: a new password, once. A link that is used up or
 * expired says so before anyone types (the page checked it), and so does one
 * that runs out while the page is open.
 */
export function ResetPasswordForm({ token, open }: { token: string; open: boolean }) {
  const [done, setDone] = useState(false);
  const { busy, error, run } = useAuthAction();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void run(async () => {
      await resetPassword(token, String(form.get("password")));
      setDone(true);
    });
  }

  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Set a new password</h1>
      {!open ? (
        <p className="text-sm text-neutral-700 dark:text-neutral-200">
          This reset link has been used or has expired.{" "}
          <a href="/forgot-password" className={textLink}>
            Ask for a new one
          </a>
        </p>
      ) : done ? (
        <AuthNotice>
          <p>Your password is set. Every other session of yours has ended.</p>
          <p>
            <a href="/sign-in" className={textLink}>
              Sign in with it
            </a>
          </p>
        </AuthNotice>
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-3">
          <AuthField
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={128}
            hint={PASSWORD_HINT}
            autoFocus
          />
          <AuthError message={error} />
          <button type="submit" disabled={busy} className={primaryButton}>
            Set password
          </button>
        </form>
      )}
    </div>
  );
}

"use client";

import { useState } from "react";
import { startOidcSignIn } from "@/lib/client/accounts";
import { AuthError, secondaryButton } from "./AuthField";

/** An OIDC provider as the sign-in pages show it. */
export interface OidcChoice {
  id: string;
  label: string;
}

/** One "Sign in with <label>" button per OIDC provider; each sends the browser to its provider. */
export function OidcButtons({ providers, next, error: initialError = null }: { providers: readonly OidcChoice[]; next: string; error?: string | null }) {
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);
  if (providers.length === 0) return null;

  async function start(id: string) {
    setBusy(true);
    setError(null);
    try {
      window.location.assign(await startOidcSignIn(id, next));
    } catch (reason) {
      setError((reason as Error).message);
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-col gap-2">
      {providers.map((provider) => (
        <button key={provider.id} type="button" onClick={() => start(provider.id)} disabled={busy} className={secondaryButton}>
          Sign in with {provider.label}
        </button>
      ))}
      <AuthError message={error} />
    </div>
  );
}

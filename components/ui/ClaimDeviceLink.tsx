"use client";

import { useEffect, useState } from "react";
import { claimDeviceLink } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";

// The page a device link opens. The code travels in the URL's fragment, which
// the browser keeps to itself; nothing changes until the person confirms here
// (a page another site links to must not switch identities by itself).
export function ClaimDeviceLink() {
  const [code, setCode] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  useEffect(() => {
    setCode(window.location.hash.slice(1) || "");
  }, []);

  async function confirm() {
    setPending(true);
    setError(null);
    try {
      await claimDeviceLink(code!);
      window.location.assign("/"); // a full load, so every part of the page reads the new identity
    } catch (cause) {
      setError(errorMessage(cause, "The link could not be used."));
      setPending(false);
    }
  }

  if (code === null) return null;
  return (
    <div className="mx-auto mt-16 max-w-md px-4">
      <h1 className="text-xl font-semibold">Use your chats in this browser?</h1>
      {code ? (
        <>
          <p className="mt-3 text-sm text-neutral-600 dark:text-neutral-300">
            This browser will show and continue the chats of the browser that made this link. The chats this browser has
            now will no longer be shown here.
          </p>
          <div className="mt-6 flex gap-2">
            <button
              type="button"
              disabled={pending}
              onClick={() => void confirm()}
              className="rounded-lg bg-neutral-900 px-4 py-2 text-sm font-medium text-white hover:bg-neutral-700 disabled:opacity-50 dark:bg-white dark:text-neutral-900"
            >
              Use my chats here
            </button>
            <a href="/" className="rounded-lg border border-neutral-300 px-4 py-2 text-sm font-medium dark:border-neutral-600">
              Cancel
            </a>
          </div>
        </>
      ) : (
        <p className="mt-3 text-sm">This link is incomplete. Copy the whole link from your other device.</p>
      )}
      {error && (
        <p role="alert" className="mt-4 text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}

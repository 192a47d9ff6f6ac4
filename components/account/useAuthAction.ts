"use client";

import { useState } from "react";

/**
 * A sign-in page's one action at a time: busy while it runs, and its error (a
 * message to show as is) when it fails. `leaving`: it ends by going to
 * another page, so the buttons stay disabled until the page goes.
 */
export function useAuthAction(initialError: string | null = null) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(initialError);

  async function run(work: () => Promise<void>, { leaving = false } = {}): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await work();
      if (!leaving) setBusy(false);
    } catch (reason) {
      setError((reason as Error).message);
      setBusy(false);
    }
  }

  return { busy, error, setError, run };
}

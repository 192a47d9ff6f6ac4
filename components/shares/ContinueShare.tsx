"use client";

import { useEffect, useRef, useState } from "react";
import { useRouter } from "next/navigation";
import { continueShare } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";
import { sharePath } from "@/lib/protocol/shares";

/** Makes the viewer's own thread from a shared link, once, and opens it; says why when it cannot. */
export function ContinueShare({ shareId }: { shareId: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return; // one copy, even when React runs the effect twice
    started.current = true;
    continueShare(shareId).then(
      (threadId) => router.replace(`/c/${threadId}`),
      (failure: unknown) => setError(errorMessage(failure, "Something went wrong. Try again from the shared page.")),
    );
  }, [router, shareId]);
  return (
    <main className="flex h-full flex-col items-center justify-center gap-3 px-4 text-center">
      {error === null ? (
        <p role="status">Copying the conversation into a thread of your own…</p>
      ) : (
        <>
          <h1 className="text-xl font-semibold">The conversation could not be continued</h1>
          <p role="alert" className="max-w-md text-sm text-neutral-600 dark:text-neutral-300">{error}</p>
          <a href={sharePath(shareId)} className="text-sm font-medium underline underline-offset-2">
            Back to the shared conversation
          </a>
        </>
      )}
    </main>
  );
}

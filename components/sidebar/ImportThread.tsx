"use client";

import { useState, type ChangeEvent } from "react";
import { useRouter } from "next/navigation";
import { importThread } from "@/lib/client/api";
import { AppError } from "@threadline/history/errors";
import { limits } from "@/lib/limits";
import { errorMessage } from "@/lib/client/error-message";
import { useThreads } from "@/components/sidebar/ThreadsContext";

/**
 * "Import thread": a thread exported as JSON comes back as a new thread of
 * this visitor's, listed and opened. A file the server refuses is said why.
 */
export function ImportThread({ onImported }: { onImported: () => void }) {
  const { refresh } = useThreads();
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onChange(event: ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    setPending(true);
    setError(null);
    try {
      if (file.size > limits.maxThreadFileBytes) {
        throw new AppError("payload_too_large:body", `The file is larger than ${Math.round(limits.maxThreadFileBytes / 1024 / 1024)} MB, the most a thread file may hold.`);
      }
      const thread = await importThread(file);
      await refresh();
      onImported();
      router.push(`/c/${thread.id}`);
    } catch (cause) {
      setError(errorMessage(cause, "The file could not be imported."));
    } finally {
      setPending(false);
      // The same file chosen again is a change again.
      input.value = "";
    }
  }

  return (
    <div className="px-3 pb-2">
      {/* The input itself is in the tab order (visually hidden, not display:none); the label shows its focus. */}
      <label className="flex cursor-pointer items-center gap-2 rounded-lg px-3 py-1.5 text-sm text-neutral-700 hover:bg-neutral-200 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-neutral-500 dark:text-neutral-200 dark:hover:bg-neutral-800">
        <input type="file" accept="application/json,.json" className="sr-only" disabled={pending} onChange={(event) => void onChange(event)} />
        Import thread
      </label>
      <p aria-live="polite" className="px-3 text-xs text-neutral-600 dark:text-neutral-300">
        {pending ? "Importing…" : ""}
      </p>
      {error && (
        <p role="alert" className="mt-1 px-3 text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}

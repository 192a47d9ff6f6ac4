"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { ThreadSummary } from "@/lib/protocol/threads";
import { errorMessage } from "@/lib/client/error-message";

interface DeleteThreadDialogProps {
  /** The thread to confirm; null keeps the dialog closed. */
  thread: ThreadSummary | null;
  onCancel: () => void;
  /** Rejects with a user-facing message when the server refuses. */
  onConfirm: (thread: ThreadSummary) => Promise<void>;
}

// A native modal <dialog>: the browser traps focus, makes the page behind it
// inert (so the row's own "Delete" button is out of reach) and handles Escape.
export function DeleteThreadDialog({ thread, onCancel, onConfirm }: DeleteThreadDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (thread && !dialog.open) {
      setError(null);
      dialog.showModal();
    }
    if (!thread && dialog.open) dialog.close();
  }, [thread]);

  async function confirm() {
    if (!thread) return;
    setPending(true);
    setError(null);
    try {
      await onConfirm(thread);
    } catch (cause) {
      setError(errorMessage(cause, "The chat could not be deleted."));
    } finally {
      setPending(false);
    }
  }

  return (
    <dialog
      ref={dialogRef}
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      // Escape closes a native dialog by itself; keep React's state in step.
      onCancel={(event) => {
        event.preventDefault();
        if (!pending) onCancel();
      }}
      // Chrome may close the dialog despite preventDefault (close-request abuse guard).
      onClose={() => {
        if (thread) onCancel();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-2xl border border-neutral-200 bg-white p-6 text-neutral-900 shadow-xl backdrop:bg-black/40 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
    >
      {thread && (
        <>
          <h2 id={titleId} className="text-lg font-semibold">
            Delete chat?
          </h2>
          <p id={descriptionId} className="mt-2 text-sm text-neutral-600 dark:text-neutral-300">
            This will delete <strong className="break-words">{thread.title}</strong> and all of its messages. This
            cannot be undone.
          </p>
          {error && (
            <p role="alert" className="mt-3 text-sm text-red-600 dark:text-red-400">
              {error}
            </p>
          )}
          <div className="mt-6 flex justify-end gap-2">
            <button
              type="button"
              onClick={onCancel}
              disabled={pending}
              autoFocus
              className="rounded-lg border border-neutral-300 px-4 py-2 text-sm font-medium hover:bg-neutral-100 disabled:opacity-50 dark:border-neutral-600 dark:hover:bg-neutral-800"
            >
              Cancel
            </button>
            <button
              type="button"
              onClick={() => void confirm()}
              disabled={pending}
              className="rounded-lg bg-red-600 px-4 py-2 text-sm font-medium text-white hover:bg-red-700 disabled:opacity-50"
            >
              Delete
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}

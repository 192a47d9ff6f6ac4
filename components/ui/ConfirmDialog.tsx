"use client";

import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { errorMessage } from "@/lib/client/error-message";

interface ConfirmDialogProps<T> {
  /** What is to be confirmed; null keeps the dialog closed. */
  subject: T | null;
  title: string;
  /** What confirming does to it, in words. */
  description: (subject: T) => ReactNode;
  /** The confirm button's words ("Delete"). */
  confirmLabel: string;
  /** What the dialog says when confirming fails with no message of the server's. */
  failure: string;
  onCancel: () => void;
  /** Rejects with a message for the person when the server refuses. */
  onConfirm: (subject: T) => Promise<void>;
}

// A native modal <dialog> that asks before something is destroyed: the
// browser traps focus, makes the page behind it inert (so the button that
// opened it is out of reach) and handles Escape. Cancel has the focus first:
// Enter or Space at once keeps things as they are.
export function ConfirmDialog<T>({ subject, title, description, confirmLabel, failure, onCancel, onConfirm }: ConfirmDialogProps<T>) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (subject && !dialog.open) {
      setError(null);
      dialog.showModal();
      cancelRef.current?.focus();
    }
    if (!subject && dialog.open) dialog.close();
  }, [subject]);

  async function confirm() {
    if (!subject) return;
    setPending(true);
    setError(null);
    try {
      await onConfirm(subject);
    } catch (cause) {
      setError(errorMessage(cause, failure));
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
        if (subject) onCancel();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-2xl border border-neutral-200 bg-white p-6 text-neutral-900 shadow-xl backdrop:bg-black/40 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
    >
      {subject && (
        <>
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          <p id={descriptionId} className="mt-2 text-sm text-neutral-600 dark:text-neutral-300">
            {description(subject)}
          </p>
          {error && (
            <p role="alert" className="mt-3 text-sm text-red-600 dark:text-red-400">
              {error}
            </p>
          )}
          <div className="mt-6 flex justify-end gap-2">
            <button
              ref={cancelRef}
              type="button"
              onClick={onCancel}
              disabled={pending}
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
              {confirmLabel}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}

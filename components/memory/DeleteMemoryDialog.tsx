"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { Memory } from "@/lib/protocol/memory";
import { errorMessage } from "@/lib/client/error-message";

interface DeleteMemoryDialogProps {
  /** The memory to confirm; null keeps the dialog closed. */
  memory: Memory | null;
  onCancel: () => void;
  /** Rejects with a message for the person when the server refuses. */
  onConfirm: (memory: Memory) => Promise<void>;
}

// A native modal <dialog>, as deleting a chat asks: the browser traps focus,
// makes the page behind it inert and handles Escape.
export function DeleteMemoryDialog({ memory, onCancel, onConfirm }: DeleteMemoryDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (memory && !dialog.open) {
      setError(null);
      dialog.showModal();
      // The safe choice first: Enter or Space right away keeps the memory.
      cancelRef.current?.focus();
    }
    if (!memory && dialog.open) dialog.close();
  }, [memory]);

  async function confirm() {
    if (!memory) return;
    setPending(true);
    setError(null);
    try {
      await onConfirm(memory);
    } catch (cause) {
      setError(errorMessage(cause, "The memory could not be deleted."));
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
      onCancel={(event) => {
        event.preventDefault();
        if (!pending) onCancel();
      }}
      // Chrome may close the dialog despite preventDefault (close-request abuse guard).
      onClose={() => {
        if (memory) onCancel();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-2xl border border-neutral-200 bg-white p-6 text-neutral-900 shadow-xl backdrop:bg-black/40 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
    >
      {memory && (
        <>
          <h2 id={titleId} className="text-lg font-semibold">
            Delete memory?
          </h2>
          <p id={descriptionId} className="mt-2 text-sm text-neutral-600 dark:text-neutral-300">
            <strong className="break-words">{memory.text}</strong> will be forgotten for good: no reply is given it again
            {memory.source ? ", and the message it came from will not teach it again." : "."}
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
              Delete
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}

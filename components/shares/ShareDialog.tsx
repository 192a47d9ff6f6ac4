"use client";

import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { createShare } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";
import { CopyButton } from "@/components/chat/CopyButton";
import { DEFAULT_SHARE_OPTIONS, type SharedLink, type ShareExpiryDays, type ShareOptions } from "@/lib/protocol/shares";
import { EXPIRY_CHOICES, expiryText } from "./share-words";

interface ShareDialogProps {
  threadId: string;
  open: boolean;
  onClose: () => void;
}

/**
 * A week unless the owner says otherwise: a link is readable by whoever it
 * reaches, and links travel further than meant. The choice sits right above
 * "Create link", so an owner who wants one for good picks Never.
 */
const DEFAULT_EXPIRY: ShareExpiryDays = 7;

const OPTION_LABELS: { option: keyof ShareOptions; label: string }[] = [
  { option: "documents", label: "Include documents" },
  { option: "attachments", label: "Include attachments" },
  { option: "toolDetails", label: "Show tool details" },
  { option: "reasoning", label: "Show reasoning" },
];

const SECONDARY =
  "rounded-lg border border-neutral-300 px-4 py-2 text-sm font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-50 dark:border-neutral-600 dark:hover:bg-neutral-800";
const PRIMARY =
  "rounded-lg bg-neutral-900 px-4 py-2 text-sm font-medium text-white outline-none hover:bg-neutral-700 focus-visible:ring-2 focus-visible:ring-neutral-500 focus-visible:ring-offset-2 disabled:opacity-50 dark:bg-white dark:text-neutral-900 dark:hover:bg-neutral-200 dark:focus-visible:ring-offset-neutral-900";

// A native modal <dialog>, as the delete dialog: the browser moves the focus
// in, keeps it there, makes the page behind inert and closes it on Escape.
/** "Share conversation": the link's options, then the link made of the thread as it is now, to copy. */
export function ShareDialog({ threadId, open, onClose }: ShareDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const linkField = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const [expires, setExpires] = useState<ShareExpiryDays>(DEFAULT_EXPIRY);
  const [include, setInclude] = useState<ShareOptions>(DEFAULT_SHARE_OPTIONS);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [link, setLink] = useState<SharedLink | null>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      // Each opening makes a new link; the options chosen last time stay.
      setLink(null);
      setError(null);
      dialog.showModal();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);

  // The button that made it is gone: the focus goes to the link, selected, ready to copy.
  useEffect(() => {
    if (link) linkField.current?.focus();
  }, [link]);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      setLink(await createShare(threadId, { expiresInDays: expires, include }));
    } catch (cause) {
      setError(errorMessage(cause, "The link could not be made. Try again."));
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
        onClose();
      }}
      // Chrome may close the dialog despite preventDefault (close-request abuse guard).
      onClose={() => {
        if (open) onClose();
      }}
      className="m-auto w-[min(30rem,calc(100vw-2rem))] rounded-2xl border border-neutral-200 bg-white p-6 text-neutral-900 shadow-xl backdrop:bg-black/40 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
    >
      <h2 id={titleId} className="text-lg font-semibold">
        Share conversation
      </h2>
      <p id={descriptionId} className="mt-2 text-sm text-neutral-600 dark:text-neutral-300">
        The link is a snapshot of this conversation as it is now: later messages are not in it. Anyone with the link can read it.
      </p>
      {link ? (
        <div className="mt-4 flex flex-col gap-3">
          <div className="flex flex-col gap-1">
            <label htmlFor={`${titleId}-link`} className="text-sm font-medium">
              Link
            </label>
            <div className="flex gap-2">
              <input
                ref={linkField}
                id={`${titleId}-link`}
                readOnly
                value={link.url}
                onFocus={(event) => event.currentTarget.select()}
                className="min-w-0 flex-1 rounded-lg border border-neutral-300 bg-neutral-50 px-3 py-2 font-mono text-xs dark:border-neutral-600 dark:bg-neutral-800"
              />
              <CopyButton text={link.url} label="Copy link" className="shrink-0" />
            </div>
          </div>
          <p className="text-xs text-neutral-600 dark:text-neutral-300">
            {expiryText(link)}. Revoke it, or see how often it was opened, in{" "}
            <a href="/shares" className="font-medium text-neutral-900 underline underline-offset-2 dark:text-neutral-100">
              Shared links
            </a>
            .
          </p>
          <div className="mt-2 flex justify-end">
            <button type="button" onClick={onClose} className={PRIMARY}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={(event) => void create(event)} className="mt-4 flex flex-col gap-4">
          <div className="flex items-center gap-3">
            <label htmlFor={`${titleId}-expires`} className="text-sm font-medium">
              Expires
            </label>
            <select
              id={`${titleId}-expires`}
              value={expires === null ? "never" : String(expires)}
              onChange={(event) => setExpires(event.target.value === "never" ? null : (Number(event.target.value) as ShareExpiryDays))}
              className="rounded-lg border border-neutral-300 bg-white px-2 py-1.5 text-sm dark:border-neutral-600 dark:bg-neutral-800"
            >
              {EXPIRY_CHOICES.map((choice) => (
                <option key={choice.label} value={choice.days === null ? "never" : String(choice.days)}>
                  {choice.label}
                </option>
              ))}
            </select>
          </div>
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1 text-sm font-medium">What the link shows besides the messages</legend>
            {OPTION_LABELS.map(({ option, label }) => (
              <label key={option} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={include[option]}
                  onChange={(event) => setInclude((was) => ({ ...was, [option]: event.target.checked }))}
                  className="size-4 accent-neutral-900 dark:accent-neutral-100"
                />
                {label}
              </label>
            ))}
          </fieldset>
          {error && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {error}
            </p>
          )}
          <div className="mt-2 flex justify-end gap-2">
            <button type="button" onClick={onClose} className={SECONDARY}>
              Cancel
            </button>
            <button type="submit" disabled={pending} aria-busy={pending || undefined} className={PRIMARY}>
              Create link
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

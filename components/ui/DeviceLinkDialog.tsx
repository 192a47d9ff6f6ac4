"use client";

import { useEffect, useId, useRef, useState } from "react";
import { activeDeviceLink, createDeviceLink, revokeDeviceLink, type DeviceLinkState } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";

// "Use on another device": a one-time link that carries this browser's
// anonymous identity (and so its chats) to another browser.
export function DeviceLinkDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [link, setLink] = useState<DeviceLinkState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      setError(null);
      setCopied(false);
      setLink(null);
      // A link made while this was read (a quick "Make a link") is the newer news: it is kept.
      activeDeviceLink().then(
        (active) => setLink((current) => (current?.code ? current : active)),
        (cause: Error) => setError(cause.message),
      );
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);

  async function run(work: () => Promise<void>) {
    setPending(true);
    setError(null);
    try {
      await work();
    } catch (cause) {
      setError(errorMessage(cause, "Something went wrong. Please try again."));
    } finally {
      setPending(false);
    }
  }

  const url = link?.code ? `${window.location.origin}/link#${link.code}` : null;
  const expires = link ? new Date(link.expiresAt).toLocaleString() : null;

  return (
    <dialog
      ref={dialogRef}
      aria-modal="true"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClose={() => {
        if (open) onClose();
      }}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-2xl border border-neutral-200 bg-white p-6 text-neutral-900 shadow-xl backdrop:bg-black/40 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
    >
      <h2 id={titleId} className="text-lg font-semibold">
        Use on another device
      </h2>
      <p className="mt-2 text-sm text-neutral-600 dark:text-neutral-300">
        Your chats belong to this browser. Open a one-time link in another browser to see and continue them there. The
        link works once, for a day; making a new one or revoking it ends the old one.
      </p>
      {url && (
        <div className="mt-4 flex gap-2">
          <input
            readOnly
            aria-label="Device link"
            value={url}
            onFocus={(event) => event.currentTarget.select()}
            className="min-w-0 flex-1 rounded-lg border border-neutral-300 bg-neutral-50 px-3 py-2 font-mono text-xs dark:border-neutral-600 dark:bg-neutral-800"
          />
          <button
            type="button"
            onClick={() => void navigator.clipboard?.writeText(url).then(() => setCopied(true))}
            className="rounded-lg border border-neutral-300 px-3 py-2 text-sm font-medium hover:bg-neutral-100 dark:border-neutral-600 dark:hover:bg-neutral-800"
          >
            {copied ? "Copied" : "Copy"}
          </button>
        </div>
      )}
      {link && !url && <p className="mt-4 text-sm">A link you made earlier works until {expires}.</p>}
      {url && <p className="mt-2 text-xs text-neutral-500">Works once, until {expires}.</p>}
      {error && (
        <p role="alert" className="mt-3 text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
      <div className="mt-6 flex flex-wrap justify-end gap-2">
        {link && (
          <button
            type="button"
            disabled={pending}
            onClick={() => void run(async () => (await revokeDeviceLink(), setLink(null)))}
            className="rounded-lg border border-neutral-300 px-4 py-2 text-sm font-medium hover:bg-neutral-100 disabled:opacity-50 dark:border-neutral-600 dark:hover:bg-neutral-800"
          >
            Revoke link
          </button>
        )}
        <button
          type="button"
          disabled={pending}
          onClick={() => void run(async () => setLink(await createDeviceLink()))}
          className="rounded-lg bg-neutral-900 px-4 py-2 text-sm font-medium text-white hover:bg-neutral-700 disabled:opacity-50 dark:bg-white dark:text-neutral-900 dark:hover:bg-neutral-200"
        >
          {link ? "Make a new link" : "Make a link"}
        </button>
        <button
          type="button"
          onClick={onClose}
          className="rounded-lg border border-neutral-300 px-4 py-2 text-sm font-medium hover:bg-neutral-100 dark:border-neutral-600 dark:hover:bg-neutral-800"
        >
          Close
        </button>
      </div>
    </dialog>
  );
}

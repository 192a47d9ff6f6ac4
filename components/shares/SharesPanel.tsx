"use client";

import { useEffect, useId, useState } from "react";
import Link from "next/link";
import { listShares, revokeShare } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";
import { CopyButton } from "@/components/chat/CopyButton";
import type { SharedLink } from "@/lib/protocol/shares";
import { UNTITLED_THREAD } from "@threadline/history/title";
import { dateText, expiryText, includedText, viewsText } from "./share-words";

const ACTION =
  "rounded-lg border border-neutral-300 px-2.5 py-1.5 text-xs font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:opacity-60 dark:border-neutral-600 dark:hover:bg-neutral-800";

/** "Shared links": every link of the visitor's not revoked, newest first, each to copy or revoke. */
export function SharesPanel() {
  const [links, setLinks] = useState<SharedLink[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);

  useEffect(() => {
    listShares().then(setLinks, (cause: unknown) => setError(errorMessage(cause, "Your shared links could not be read.")));
  }, []);

  async function revoke(link: SharedLink) {
    setRevoking(link.id);
    setError(null);
    try {
      await revokeShare(link.id);
      // Only once the server has let it go: a row that vanished while the link still opened would lie.
      setLinks((was) => was?.filter((other) => other.id !== link.id) ?? null);
    } catch (cause) {
      setError(errorMessage(cause, "The link could not be revoked. Try again."));
    } finally {
      setRevoking(null);
    }
  }

  return (
    <div className="mx-auto flex h-full max-w-3xl flex-col gap-4 overflow-y-auto px-4 py-6">
      <h1 className="text-xl font-semibold">Shared links</h1>
      <p className="text-sm text-neutral-700 dark:text-neutral-200">
        Anyone with one of these links can read the conversation as it was when the link was made. Revoke a link and it stops opening at once.
      </p>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      {links === null ? (
        !error && <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">Loading your shared links…</p>
      ) : links.length === 0 ? (
        <p className="text-sm text-neutral-600 dark:text-neutral-300">
          You have no shared links. To make one, open a conversation and choose Share… at the top of the page.
        </p>
      ) : (
        <ul aria-label="Your shared links" className="flex flex-col divide-y divide-neutral-200 dark:divide-neutral-800">
          {links.map((link) => (
            <SharedLinkRow key={link.id} link={link} revoking={revoking === link.id} onRevoke={() => void revoke(link)} />
          ))}
        </ul>
      )}
    </div>
  );
}

function SharedLinkRow({ link, revoking, onRevoke }: { link: SharedLink; revoking: boolean; onRevoke: () => void }) {
  const title = link.title ?? UNTITLED_THREAD;
  const titleId = useId();
  return (
    <li className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0">
        <p id={titleId} className="truncate text-sm font-medium">
          {link.threadId ? (
            <Link href={`/c/${link.threadId}`} className="underline-offset-2 hover:underline">
              {title}
            </Link>
          ) : (
            title
          )}
        </p>
        <p className="text-xs text-neutral-600 dark:text-neutral-300">
          Created {dateText(link.createdAt)} · <span className={link.expired ? "font-medium text-red-700 dark:text-red-300" : undefined}>{expiryText(link)}</span> ·{" "}
          {viewsText(link.views)}
        </p>
        <p className="text-xs text-neutral-600 dark:text-neutral-300">Includes {includedText(link.options)}</p>
      </div>
      <div className="flex shrink-0 items-center gap-2">
        <CopyButton text={link.url} label="Copy link" />
        <button type="button" onClick={onRevoke} disabled={revoking} aria-describedby={titleId} className={ACTION}>
          Revoke
        </button>
      </div>
    </li>
  );
}

import Link from "next/link";
import type { MemorySource as Source } from "@/lib/protocol/memory";

/** Where a memory came from: the message it was learned from (a link to it), a deleted thread, or the person's own hand. */
export function MemorySource({ source, describedBy }: { source: Source | null; describedBy?: string }) {
  if (source === null) return <>Added by you</>;
  if (source.threadDeleted) return <>Learned in a deleted thread</>;
  return (
    <>
      Learned from{" "}
      <Link
        href={sourceHref(source)}
        prefetch={false}
        aria-describedby={describedBy}
        className="underline underline-offset-2 hover:text-neutral-900 dark:hover:text-neutral-50"
      >
        your message
      </Link>
    </>
  );
}

/** The page of the message a memory was learned from, opened at it (as a search result is). */
export const sourceHref = (source: Pick<Source, "threadId" | "messageId">) =>
  `/c/${encodeURIComponent(source.threadId)}#message-${encodeURIComponent(source.messageId)}`;

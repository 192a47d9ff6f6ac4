import "server-only";
import { threadMarkdown } from "@/lib/threads/markdown";
import { THREAD_EXPORT_FORMAT, THREAD_EXPORT_VERSION } from "@/lib/protocol/thread-export";
import type { SharedMessage, SharedSnapshot, ShareOptions } from "@/lib/protocol/shares";

/** A link's snapshot as the Markdown its page offers: what the page shows, in the transcript an export writes. */
export function sharedMarkdown(snapshot: SharedSnapshot, options: ShareOptions): string {
  return threadMarkdown(
    {
      format: THREAD_EXPORT_FORMAT,
      version: THREAD_EXPORT_VERSION,
      exportedAt: snapshot.startedAt,
      thread: { title: snapshot.title, createdAt: snapshot.startedAt, updatedAt: snapshot.startedAt },
      messages: snapshot.messages,
      documents: snapshot.documents,
    },
    {
      byline: "_Shared from Threadline: the conversation as it was when the link was made._",
      toolDetails: options.toolDetails,
      withheldFiles: (message) => (message as SharedMessage).withheldFiles ?? 0,
    },
  );
}

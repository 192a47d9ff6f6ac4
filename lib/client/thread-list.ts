// How pages of GET /api/threads combine into the sidebar's list.
import type { ThreadListItem, ThreadPage, ThreadSummary } from "@/lib/protocol/threads";

/** "Load more": append, skipping threads that moved pages since the last fetch. */
export function appendPage(list: ThreadPage, page: ThreadPage): ThreadPage {
  const known = new Set(list.threads.map((thread) => thread.id));
  return {
    threads: [...list.threads, ...page.threads.filter((thread) => !known.has(thread.id))],
    nextCursor: page.nextCursor,
  };
}

/**
 * A refresh fetches only the first page; replacing the list with it would throw
 * away the pages the user already loaded. Activity only moves threads to the top,
 * so the threads we had that are not in the new first page are older than all of
 * it and keep their place, and the old cursor still points past the last of them.
 */
export function mergeFirstPage(list: ThreadPage, firstPage: ThreadPage): ThreadPage {
  const fresh = new Set(firstPage.threads.map((thread) => thread.id));
  const olderTail = list.threads.filter((thread) => !fresh.has(thread.id));
  if (olderTail.length === 0 || firstPage.nextCursor === null) return firstPage;
  return { threads: [...firstPage.threads, ...olderTail], nextCursor: list.nextCursor };
}

/** A thread's new summary (a rename) in place, keeping what only the list knows of it. */
export function withSummary(list: ThreadPage, summary: ThreadSummary): ThreadPage {
  return { ...list, threads: list.threads.map((thread) => (thread.id === summary.id ? { ...thread, ...summary } : thread)) };
}

/** The thread as read at `lastReadAt` (the server's clock): its reply is seen unless a newer one came since. */
export function withRead(list: ThreadPage, id: string, lastReadAt: string): ThreadPage {
  return { ...list, threads: list.threads.map((thread) => (thread.id === id ? markedRead(thread, lastReadAt) : thread)) };
}

function markedRead(thread: ThreadListItem, lastReadAt: string): ThreadListItem {
  const unseen = thread.lastReplyAt !== null && thread.lastReplyAt > lastReadAt;
  return { ...thread, lastReadAt, unseen };
}

"use client";

import { lazy, Suspense, useState } from "react";
import type { ThreadSummary } from "@/lib/protocol/threads";
import { errorMessage } from "@/lib/client/error-message";
import { useNewChat } from "@/components/chat/NewChatContext";
import { useThreads } from "@/components/sidebar/ThreadsContext";
import { ThreadRow } from "@/components/sidebar/ThreadRow";
import { useOpenedOnce } from "@/components/ui/useOpenedOnce";

// Not needed for the first paint: loaded when the user first deletes a thread.
const DeleteThreadDialog = lazy(() => import("@/components/sidebar/DeleteThreadDialog").then((m) => ({ default: m.DeleteThreadDialog })));

export function ThreadList({ onNavigate }: { onNavigate: () => void }) {
  const { threads, groups, hasMore, loadState, loadingMore, loadMore, rename, remove, activeId } = useThreads();
  const { startNewChat } = useNewChat();
  const [pendingDelete, setPendingDelete] = useState<ThreadSummary | null>(null);
  const deleteDialogLoaded = useOpenedOnce(pendingDelete !== null);
  const [loadMoreError, setLoadMoreError] = useState<string | null>(null);

  async function confirmDelete(thread: ThreadSummary) {
    await remove(thread.id);
    setPendingDelete(null);
    if (thread.id === activeId) startNewChat();
  }

  async function showMore() {
    setLoadMoreError(null);
    try {
      await loadMore();
    } catch (cause) {
      setLoadMoreError(errorMessage(cause, "Could not load more chats."));
    }
  }

  return (
    <>
      {loadState === "loading" && threads.length === 0 && <p className="px-3 py-2 text-sm text-neutral-500">Loading chats…</p>}
      {loadState === "error" && <p className="px-3 py-2 text-sm text-red-600 dark:text-red-400">Could not load your chats.</p>}
      {loadState === "ready" && threads.length === 0 && (
        <p className="px-3 py-2 text-sm text-neutral-500 dark:text-neutral-400">Your chats will appear here.</p>
      )}
      {groups.map((group) => (
        <section key={group.label} className="mb-4">
          <h2 className="px-3 pb-1 text-xs font-medium text-neutral-500 dark:text-neutral-400">
            {group.label}
          </h2>
          <ul className="flex flex-col gap-0.5">
            {group.threads.map((thread) => (
              <ThreadRow
                key={thread.id}
                thread={thread}
                active={thread.id === activeId}
                onRename={rename}
                onDelete={setPendingDelete}
                onNavigate={onNavigate}
              />
            ))}
          </ul>
        </section>
      ))}
      {hasMore && (
        <button
          type="button"
          onClick={() => void showMore()}
          disabled={loadingMore}
          className="mx-3 mb-4 rounded-lg px-3 py-1.5 text-sm text-neutral-600 hover:bg-neutral-100 disabled:opacity-50 dark:text-neutral-300 dark:hover:bg-neutral-800"
        >
          {loadingMore ? "Loading…" : "Load more"}
        </button>
      )}
      {loadMoreError && <p className="px-3 pb-2 text-xs text-red-600 dark:text-red-400">{loadMoreError}</p>}
      {deleteDialogLoaded && (
        <Suspense fallback={null}>
          <DeleteThreadDialog thread={pendingDelete} onCancel={() => setPendingDelete(null)} onConfirm={confirmDelete} />
        </Suspense>
      )}
    </>
  );
}

"use client";

import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { useRouter } from "next/navigation";
import { ThreadController, type ThreadControllerOptions } from "@/lib/client/thread-controller";
import type { ThreadListPort } from "@/lib/client/thread-list-port";
import { useFocusedMessage } from "@/components/chat/useFocusedMessage";
import { useThreadListPort } from "@/components/ui/ThreadListPort";

export type ThreadChatOptions = Pick<ThreadControllerOptions, "threadId" | "initialHistory" | "pendingTurn" | "olderCursor" | "versions" | "models" | "threadModel" | "maxUploadBytes" | "temporary">;

/**
 * One chat page's thread: the page's controller (lib/client/thread-controller.ts),
 * built once, rendered from its snapshot. What only React can do stays here:
 * the router, the list of threads from its provider, the URL's hash.
 */
export function useThreadChat(options: ThreadChatOptions) {
  const threadList = useLatest(useThreadListPort());
  const router = useLatest(useRouter());
  const [controller] = useState(
    () =>
      new ThreadController({
        ...options,
        threadList: {
          refresh: () => threadList.current.refresh(),
          onThreadNews: (threadId, listener) => threadList.current.onThreadNews(threadId, listener),
        } satisfies ThreadListPort,
        page: {
          search: () => window.location.search,
          // The URL follows the newly named thread without a new page (a reload then opens it); the query stays.
          showThread: (threadId) => {
            const path = `/c/${threadId}`;
            if (window.location.pathname !== path) window.history.replaceState(null, "", `${path}${window.location.search}`);
          },
          navigate: (path) => router.current.push(path),
        },
      }),
  );
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot, controller.getSnapshot);
  useEffect(() => controller.attach(), [controller]);

  const focusId = useFocusedMessage();
  useEffect(() => controller.reveal(focusId), [controller, focusId, snapshot]);

  return { snapshot, controller, focusId };
}

/** A ref that always holds the latest value: the controller, built once, reaches the router and the list through it. */
function useLatest<T>(value: T) {
  const ref = useRef(value);
  useEffect(() => {
    ref.current = value;
  });
  return ref;
}

"use client";

import { createContext, useContext, useMemo, useSyncExternalStore, type ReactNode } from "react";
import type { ThreadWings } from "@/lib/client/thread-wings";

// The thread's documents and feedback as the bubbles and the side panel reach
// them: the thread's controller holds and reads them (lib/client/thread-wings.ts);
// each hook follows only its own part, so a streaming reply draws no bubble again.
const ThreadWingsContext = createContext<ThreadWings | null>(null);

export function ThreadWingsProvider({ wings, children }: { wings: ThreadWings; children: ReactNode }) {
  return <ThreadWingsContext.Provider value={wings}>{children}</ThreadWingsContext.Provider>;
}

function useWings(): ThreadWings {
  const wings = useContext(ThreadWingsContext);
  if (!wings) throw new Error("The thread's documents and feedback are read inside <ThreadWingsProvider>.");
  return wings;
}

export function useDocuments() {
  const wings = useWings();
  const documents = useSyncExternalStore(wings.subscribe, () => wings.getSnapshot().documents, () => wings.getSnapshot().documents);
  const openId = useSyncExternalStore(wings.subscribe, () => wings.getSnapshot().openDocumentId, () => wings.getSnapshot().openDocumentId);
  return useMemo(
    () => ({ documents, openId, open: wings.openDocument, close: wings.closeDocument, replace: wings.replaceDocument }),
    [documents, openId, wings],
  );
}

export interface ThreadFeedbackState {
  /** The thread's feedback by reply version, as the server last answered. */
  byMessage: ReturnType<ThreadWings["getSnapshot"]>["feedback"];
  /** Stores a change and, once the server took it, shows it; rejects with the reason it was refused. */
  set: ThreadWings["setFeedback"];
}

export function useFeedback(): ThreadFeedbackState {
  const wings = useWings();
  const byMessage = useSyncExternalStore(wings.subscribe, () => wings.getSnapshot().feedback, () => wings.getSnapshot().feedback);
  return useMemo(() => ({ byMessage, set: wings.setFeedback }), [byMessage, wings]);
}

"use client";

import { useEffect, useState } from "react";
import { messageIdFromHash } from "@/lib/client/thread-chat-state";

/** The message the page is opened at (#message-<id>, a search result), following the hash as it changes. */
export function useFocusedMessage(): string | null {
  const [focusId, setFocusId] = useState<string | null>(null);
  useEffect(() => {
    const read = () => setFocusId(messageIdFromHash(window.location.hash));
    read();
    window.addEventListener("hashchange", read);
    return () => window.removeEventListener("hashchange", read);
  }, []);
  return focusId;
}

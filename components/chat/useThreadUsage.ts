"use client";

import { useEffect, useState } from "react";
import { threadUsage } from "@/lib/client/api";
import type { ThreadUsage } from "@/lib/protocol/usage";

export type UsageReading = { state: "loading" } | { state: "error"; message: string } | { state: "done"; usage: ThreadUsage };

/** The thread's usage, read from the server each time `open` turns true, or `again` changes while open (it counts what the server stored by then). */
export function useThreadUsage(open: boolean, threadId: string, again?: string): UsageReading {
  const [reading, setReading] = useState<UsageReading>({ state: "loading" });
  useEffect(() => {
    if (!open) return;
    let live = true;
    setReading({ state: "loading" });
    threadUsage(threadId).then(
      (usage) => live && setReading({ state: "done", usage }),
      (error: Error) => live && setReading({ state: "error", message: error.message }),
    );
    return () => {
      live = false;
    };
  }, [open, threadId, again]);
  return reading;
}

"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { stopThreadGeneration } from "@/lib/client/api";

// How long the server gets to end the stream itself before the client cuts it.
const SERVER_STOP_GRACE_MS = 3_000;

/**
 * Stop asks the server to end the generation and then lets the stream finish by
 * itself, so the client ends up with exactly the text the server stored. Only if
 * that does not happen in time (or the thread has no id yet) is the request
 * aborted on the client.
 */
export function useStopReply({ threadId, abort }: { threadId: () => string | null; abort: () => Promise<void> }) {
  const [stopping, setStopping] = useState(false);
  const graceTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const stop = useCallback(async () => {
    const id = threadId();
    setStopping(true);
    if (!id) {
      await abort();
      return;
    }
    graceTimer.current = setTimeout(() => void abort(), SERVER_STOP_GRACE_MS);
    try {
      await stopThreadGeneration(id);
    } catch {
      // The server could not be told; cutting the stream is all that is left.
      clearTimeout(graceTimer.current);
      await abort();
    }
  }, [threadId, abort]);

  /** Call when the turn has ended, however it ended. */
  const turnEnded = useCallback(() => {
    clearTimeout(graceTimer.current);
    setStopping(false);
  }, []);

  useEffect(() => () => clearTimeout(graceTimer.current), []);

  return { stop, stopping, turnEnded };
}

"use client";

import { createContext, useContext } from "react";
import type { ThreadListPort } from "@/lib/client/thread-list-port";

export type { ThreadListPort };

/** The list of threads as a thread's page reaches it (lib/client/thread-list-port.ts): the sidebar's provider fills it. */
export const ThreadListPortContext = createContext<ThreadListPort | null>(null);

export function useThreadListPort(): ThreadListPort {
  const port = useContext(ThreadListPortContext);
  if (!port) throw new Error("useThreadListPort must be used inside a provider of the thread list (<ThreadsProvider>).");
  return port;
}

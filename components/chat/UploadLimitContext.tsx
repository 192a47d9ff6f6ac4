"use client";

import { createContext, useContext, type ReactNode } from "react";

// The most one attached file may be (ATTACHMENT_MAX_MB, in bytes), as the
// server rendered the page: the composer refuses a bigger file before it
// is uploaded. The server refuses it too, whatever the page says.
const UploadLimitContext = createContext<number>(10 * 1024 * 1024);

export function UploadLimitProvider({ maxBytes, children }: { maxBytes: number; children: ReactNode }) {
  return <UploadLimitContext.Provider value={maxBytes}>{children}</UploadLimitContext.Provider>;
}

export const useUploadLimit = (): number => useContext(UploadLimitContext);

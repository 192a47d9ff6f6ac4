"use client";

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { fetchDocuments } from "@/lib/client/documents";
import type { ThreadDocument } from "@/lib/protocol/documents";

// The thread's documents, as of its active path, for the page: read when the
// thread settles (no reply on its way) and whenever its path changes (a new
// reply, a regenerate, a version switched), and which one the side panel shows.
interface Documents {
  documents: ThreadDocument[];
  openId: string | undefined;
  open: (documentId: string) => void;
  close: () => void;
  /** The document as the owner's edit left it. */
  replace: (document: ThreadDocument) => void;
}

const DocumentsContext = createContext<Documents>({ documents: [], openId: undefined, open: () => {}, close: () => {}, replace: () => {} });

export function DocumentsProvider({ threadId, pathKey, children }: { threadId: string | null; pathKey: string | null; children: ReactNode }) {
  const [documents, setDocuments] = useState<ThreadDocument[]>([]);
  const [openId, setOpenId] = useState<string>();
  useEffect(() => {
    // pathKey null: a reply is on its way; the documents are read once it has settled.
    if (!threadId || pathKey === null) return;
    const controller = new AbortController();
    fetchDocuments(threadId, controller.signal).then(setDocuments, () => {});
    return () => controller.abort();
  }, [threadId, pathKey]);
  const replace = useCallback((document: ThreadDocument) => setDocuments((all) => all.map((d) => (d.id === document.id ? document : d))), []);
  const value = useMemo<Documents>(
    () => ({ documents: threadId ? documents : [], openId, open: setOpenId, close: () => setOpenId(undefined), replace }),
    [documents, openId, replace, threadId],
  );
  return <DocumentsContext.Provider value={value}>{children}</DocumentsContext.Provider>;
}

export const useDocuments = (): Documents => useContext(DocumentsContext);

"use client";

import { lazy, Suspense, useRef, useState } from "react";
import { useOpenedOnce } from "@/components/ui/useOpenedOnce";
import { ShareIcon } from "@/components/ui/icons";

// Not needed for the thread's first paint: loaded when the owner first asks for a link.
const ShareDialog = lazy(() => import("@/components/shares/ShareDialog").then((m) => ({ default: m.ShareDialog })));

/** The thread header's "Share…": opens the "Share conversation" dialog; closing it gives the focus back here. */
export function ShareButton({ threadId }: { threadId: string }) {
  const [open, setOpen] = useState(false);
  const loaded = useOpenedOnce(open);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        ref={button}
        type="button"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
        className="inline-flex items-center gap-1.5 rounded-lg px-2.5 py-1.5 text-sm text-neutral-700 outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:text-neutral-200 dark:hover:bg-neutral-800"
      >
        <ShareIcon />
        {/* On a phone the icon stands for the words, as Export's does. */}
        <span className="sr-only sm:not-sr-only">Share…</span>
      </button>
      {loaded && (
        <Suspense fallback={null}>
          <ShareDialog
            threadId={threadId}
            open={open}
            onClose={() => {
              setOpen(false);
              button.current?.focus();
            }}
          />
        </Suspense>
      )}
    </>
  );
}

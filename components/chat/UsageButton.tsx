"use client";

import { useEffect, useId, useRef, useState } from "react";
import { threadUsage } from "@/lib/client/api";
import { usageText } from "@/lib/client/usage-text";
import type { UsageSum } from "@/lib/protocol/usage";
import { actionButtonClass } from "@/components/chat/MessageActions";

type Loaded = { state: "loading" } | { state: "error"; message: string } | { state: "done"; reply: (UsageSum & { byAgent: Record<string, UsageSum> }) | undefined };

/**
 * "Usage" in a reply's footer: what the reply's model calls spent, in total
 * and by agent, read from the server when opened (it counts what the server
 * stored). Escape or a click elsewhere closes it.
 */
export function UsageButton({ threadId, replyId }: { threadId: string; replyId: string }) {
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    let live = true;
    setLoaded({ state: "loading" });
    threadUsage(threadId).then(
      (usage) => live && setLoaded({ state: "done", reply: usage.byMessage[replyId] }),
      (error: Error) => live && setLoaded({ state: "error", message: error.message }),
    );
    const closeOutside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", closeOutside);
    return () => {
      live = false;
      document.removeEventListener("pointerdown", closeOutside);
    };
  }, [open, threadId, replyId]);

  return (
    <div
      ref={root}
      className="relative"
      onKeyDown={(event) => {
        if (event.key === "Escape" && open) {
          event.preventDefault();
          setOpen(false);
          button.current?.focus();
        }
      }}
    >
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        title="What this reply's model calls spent"
        onClick={() => setOpen((o) => !o)}
        className={`${actionButtonClass} text-xs`}
      >
        Usage
      </button>
      <div
        id={panelId}
        role="region"
        aria-label="Usage of this reply"
        aria-live="polite"
        hidden={!open}
        className="absolute bottom-full left-0 z-20 mb-1 w-64 rounded-lg border border-neutral-200 bg-white p-3 text-xs shadow-lg dark:border-neutral-700 dark:bg-neutral-800"
      >
        {loaded.state === "loading" ? (
          <p>Counting…</p>
        ) : loaded.state === "error" ? (
          <p className="text-red-600 dark:text-red-400">{loaded.message}</p>
        ) : !loaded.reply ? (
          <p>No usage recorded for this reply.</p>
        ) : (
          <>
            <p className="font-medium">{usageText(loaded.reply)}</p>
            <dl className="mt-2 grid grid-cols-[1fr_auto] gap-x-3 gap-y-1">
              {Object.entries(loaded.reply.byAgent).map(([agent, sum]) => (
                <div key={agent} className="contents">
                  <dt className="text-neutral-500 dark:text-neutral-400">{agent}</dt>
                  <dd className="text-right tabular-nums">{usageText(sum)}</dd>
                </div>
              ))}
            </dl>
          </>
        )}
      </div>
    </div>
  );
}

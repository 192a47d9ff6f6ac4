"use client";

import { useId, useRef, useState } from "react";
import { usageText } from "@/lib/client/usage-text";
import { useDismiss } from "@/components/ui/useDismiss";
import { useThreadUsage } from "@/components/chat/useThreadUsage";
import { actionButtonClass } from "@/components/chat/MessageActions";

/**
 * "Usage" in a reply's footer: what the reply's model calls spent, in total
 * and by agent, read from the server when opened (it counts what the server
 * stored). Escape or a click elsewhere closes it.
 */
export function UsageButton({ threadId, replyId }: { threadId: string; replyId: string }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  const loaded = useThreadUsage(open, threadId);
  const closeOnEscape = useDismiss(open, root, setOpen, button);
  const reply = loaded.state === "done" ? loaded.usage.byMessage[replyId] : undefined;

  return (
    <div
      ref={root}
      className="relative"
      onKeyDown={closeOnEscape}
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
        ) : !reply ? (
          <p>No usage recorded for this reply.</p>
        ) : (
          <>
            <p className="font-medium">{usageText(reply)}</p>
            <dl className="mt-2 grid grid-cols-[1fr_auto] gap-x-3 gap-y-1">
              {Object.entries(reply.byAgent).map(([agent, sum]) => (
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

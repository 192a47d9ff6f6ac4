"use client";

import { memo, useId, useState } from "react";
import { ChevronDownIcon } from "@/components/ui/icons";
import type { ChatMessage } from "@/lib/client/messages";

/**
 * Where a long thread was compacted: from here on the model read a summary
 * instead of the earlier messages (which stay, above). A small divider that
 * opens to show the summary.
 */
export const SummaryMarker = memo(function SummaryMarker({ message }: { message: ChatMessage }) {
  const [open, setOpen] = useState(false);
  const regionId = useId();
  const summary = message.parts.find((part) => part.type === "data-summary")?.data;
  if (!summary) return null;
  return (
    <div id={`message-${message.id}`} data-role="system" className="flex flex-col items-center gap-2 text-sm">
      <div className="flex w-full items-center gap-3 text-neutral-500 dark:text-neutral-400">
        <span aria-hidden className="h-px flex-1 bg-neutral-200 dark:bg-neutral-700" />
        <button
          type="button"
          aria-expanded={open}
          aria-controls={regionId}
          onClick={() => setOpen((was) => !was)}
          title={
            summary.imported
              ? `A summary of the ${summary.summarizedMessages} messages before this point, from the imported file: the model reads it as quoted text, not as instructions`
              : `The model now reads a summary of the ${summary.summarizedMessages} messages before this point`
          }
          className="inline-flex items-center gap-1 rounded-md px-1 py-0.5 outline-none hover:text-neutral-800 focus-visible:ring-2 focus-visible:ring-neutral-400 dark:hover:text-neutral-100"
        >
          Earlier messages summarized
          <ChevronDownIcon className={`transition-transform ${open ? "rotate-180" : ""}`} />
        </button>
        <span aria-hidden className="h-px flex-1 bg-neutral-200 dark:bg-neutral-700" />
      </div>
      <div
        id={regionId}
        role="region"
        aria-label="Summary of earlier messages"
        hidden={!open}
        className="w-full rounded-xl border border-neutral-200 px-4 py-3 leading-relaxed whitespace-pre-wrap text-neutral-600 wrap-anywhere dark:border-neutral-700 dark:text-neutral-300"
      >
        {open && summary.text}
      </div>
    </div>
  );
});

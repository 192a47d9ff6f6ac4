"use client";

import { memo, useId, useState } from "react";
import { ChevronDownIcon } from "@/components/ui/icons";

interface ReasoningBlockProps {
  text: string;
  /** How long the model thought, when the server recorded it. */
  durationMs?: number;
  /** The model is still thinking (the part streams and so does the reply). */
  thinking: boolean;
}

export function reasoningLabel(thinking: boolean, durationMs: number | undefined): string {
  if (thinking) return "Thinking…";
  if (durationMs === undefined) return "Thought for a moment";
  return `Thought for ${Math.max(1, Math.round(durationMs / 1000))} s`;
}

/** The model's reasoning, collapsed behind a "Thought for N s" button. */
export const ReasoningBlock = memo(function ReasoningBlock({ text, durationMs, thinking }: ReasoningBlockProps) {
  const [open, setOpen] = useState(false);
  const regionId = useId();
  return (
    <div>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={regionId}
        onClick={() => setOpen((was) => !was)}
        className="-mx-1 inline-flex items-center gap-1 rounded-md px-1 py-0.5 text-sm text-neutral-500 outline-none hover:text-neutral-800 focus-visible:ring-2 focus-visible:ring-neutral-400 dark:text-neutral-400 dark:hover:text-neutral-100"
      >
        <span className={thinking ? "animate-pulse" : undefined}>{reasoningLabel(thinking, durationMs)}</span>
        <ChevronDownIcon className={`transition-transform ${open ? "rotate-180" : ""}`} />
      </button>
      <div
        id={regionId}
        role="region"
        aria-label="Reasoning"
        hidden={!open}
        className="mt-1.5 border-l-2 border-neutral-200 pl-3 text-sm leading-relaxed whitespace-pre-wrap text-neutral-600 wrap-anywhere dark:border-neutral-700 dark:text-neutral-300"
      >
        {/* Only when open: hidden text would still be in the reply's textContent. */}
        {open && text}
      </div>
    </div>
  );
});

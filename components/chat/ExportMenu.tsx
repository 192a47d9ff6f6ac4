"use client";

import { useEffect, useId, useRef, useState } from "react";
import { exportUrl } from "@/lib/client/api";
import { useDismiss } from "@/components/ui/useDismiss";
import { useThreadUsage } from "@/components/chat/useThreadUsage";
import { usageText } from "@/lib/client/usage-text";
import { leftText } from "@/lib/client/budget-words";
import { myBudget } from "@/lib/client/budgets";
import { useMyBudget } from "@/components/budgets/useMyBudget";
import { ChevronDownIcon, DownloadIcon } from "@/components/ui/icons";

/**
 * "Export": a small disclosure with what the thread has spent so far (and
 * what is left of the person's budget, when one binds them) and its
 * download links, JSON (which Import reads back) and Markdown. Escape or a
 * click elsewhere closes it; the focus goes back to the button.
 */
export function ExportMenu({ threadId }: { threadId: string }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const firstLink = useRef<HTMLAnchorElement>(null);
  // What the thread has spent, every version of every reply, read each time the menu opens.
  const usage = useThreadUsage(open, threadId);
  const closeOnEscape = useDismiss(open, root, setOpen, button);
  // What is left of the person's budget, beside what the thread spent of it.
  const budget = useMyBudget();

  useEffect(() => {
    if (!open) return;
    firstLink.current?.focus();
    void myBudget.refresh();
  }, [open]);

  const link =
    "block rounded-md px-3 py-1.5 text-sm outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:hover:bg-neutral-700";

  return (
    <div
      ref={root}
      className="relative"
      onKeyDown={closeOnEscape}
      // Tabbing out of the links closes it.
      onBlur={(event) => {
        if (open && !root.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex items-center gap-1.5 rounded-lg px-2.5 py-1.5 text-sm text-neutral-700 outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:text-neutral-200 dark:hover:bg-neutral-800"
      >
        <DownloadIcon />
        <span className="sr-only sm:not-sr-only">Export</span>
        <ChevronDownIcon className={open ? "rotate-180" : undefined} />
      </button>
      <div
        id={menuId}
        hidden={!open}
        className="absolute right-0 z-20 mt-1 w-48 rounded-lg border border-neutral-200 bg-white p-1 shadow-lg dark:border-neutral-700 dark:bg-neutral-800"
      >
        <p aria-live="polite" data-thread-usage className="border-b border-neutral-200 px-3 pt-1 pb-2 text-xs text-neutral-600 dark:border-neutral-700 dark:text-neutral-300">
          {usage.state === "done"
            ? `This thread: ${usageText(usage.usage.total)}`
            : usage.state === "error"
              ? "This thread's usage could not be read."
              : "Counting this thread's usage…"}
          {budget && (
            <span data-budget-left className="mt-1 block">
              Your budget: {leftText(budget)}
            </span>
          )}
        </p>
        <ul aria-label="Export formats">
          <li>
            <a ref={firstLink} href={exportUrl(threadId, "json")} download onClick={() => setOpen(false)} className={link}>
              Export as JSON
            </a>
          </li>
          <li>
            <a href={exportUrl(threadId, "markdown")} download onClick={() => setOpen(false)} className={link}>
              Export as Markdown
            </a>
          </li>
        </ul>
      </div>
    </div>
  );
}

"use client";

import { memo, useId, useState } from "react";
import Link from "next/link";
import { ChevronDownIcon } from "@/components/ui/icons";
import type { UsedMemory } from "@/lib/client/memories-used";
import { sourceHref } from "@/components/memory/MemorySource";

/** "Memory used" over a reply that was given memories: opened, each memory's words, leading to the message it was learned from. */
export const MemoryUsed = memo(function MemoryUsed({ memories }: { memories: UsedMemory[] }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <div data-memory-used>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((was) => !was)}
        className="-mx-1 inline-flex items-center gap-1 rounded-md px-1 py-0.5 text-sm text-neutral-600 outline-none hover:text-neutral-900 focus-visible:ring-2 focus-visible:ring-neutral-400 dark:text-neutral-300 dark:hover:text-neutral-100"
      >
        Memory used
        <ChevronDownIcon className={`transition-transform ${open ? "rotate-180" : ""}`} />
      </button>
      <ul
        id={listId}
        aria-label="Memories this reply was given"
        hidden={!open}
        className="mt-1.5 flex flex-col gap-1 border-l-2 border-neutral-200 pl-3 text-sm text-neutral-700 dark:border-neutral-700 dark:text-neutral-200"
      >
        {/* Only when open: hidden words would still be in the reply's textContent. */}
        {open && memories.map((used) => <li key={used.id}>{usedText(used)}</li>)}
        {open && (
          <li>
            <Link href="/memory" className="text-xs underline underline-offset-2">
              Manage memory
            </Link>
          </li>
        )}
      </ul>
    </div>
  );
});

function usedText(used: UsedMemory) {
  if (used.state === "deleted") return <span className="italic">a memory since deleted</span>;
  if (used.state === "unread") return <span className="italic">a memory (its words could not be read)</span>;
  const { text, source } = used.memory;
  if (source === null || source.threadDeleted) return text;
  return (
    <Link href={sourceHref(source)} prefetch={false} className="underline underline-offset-2">
      {text}
    </Link>
  );
}

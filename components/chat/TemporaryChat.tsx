"use client";

import { useId } from "react";

/** Before a new chat's first message: whether it is a temporary chat, one that neither reads nor writes memory. */
export function TemporaryChatSwitch({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const hintId = useId();
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-wrap items-center gap-x-2 gap-y-0.5 px-4 pb-2 text-sm">
      <label className="inline-flex cursor-pointer items-center gap-2 rounded-md text-neutral-700 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-neutral-500 dark:text-neutral-200">
        <input
          type="checkbox"
          role="switch"
          checked={on}
          onChange={(event) => onChange(event.target.checked)}
          aria-describedby={hintId}
          className="size-4 accent-neutral-900 dark:accent-neutral-100"
        />
        Temporary chat
      </label>
      <span id={hintId} className="text-xs text-neutral-600 dark:text-neutral-300">
        {on ? "This chat will not use or add to your memory." : "Uses and adds to your memory."}
      </span>
    </div>
  );
}

/** The header's mark on a temporary chat. */
export function TemporaryChatLabel() {
  return (
    <span
      title="This chat neither uses nor adds to your memory"
      className="mr-1 rounded-full border border-neutral-300 px-2.5 py-0.5 text-xs font-medium text-neutral-700 dark:border-neutral-600 dark:text-neutral-200"
    >
      Temporary chat
    </span>
  );
}

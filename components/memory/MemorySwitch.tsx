"use client";

import { useId, useState } from "react";
import { setMemoryEnabled } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";

/** The person's memory on or off: off, replies are given none and nothing new is learned; what is kept stays. */
export function MemorySwitch({ enabled, onChanged }: { enabled: boolean; onChanged: (enabled: boolean) => void }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const labelId = useId();
  const hintId = useId();

  async function toggle() {
    setPending(true);
    setError(null);
    try {
      onChanged(await setMemoryEnabled(!enabled));
    } catch (cause) {
      setError(errorMessage(cause, "Memory could not be turned " + (enabled ? "off." : "on.")));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="flex flex-col gap-1">
      <div className="flex items-center gap-3">
        <button
          type="button"
          role="switch"
          aria-checked={enabled}
          aria-labelledby={labelId}
          aria-describedby={hintId}
          disabled={pending}
          onClick={() => void toggle()}
          className="relative inline-flex h-6 w-11 shrink-0 items-center rounded-full border border-neutral-400 bg-neutral-200 outline-none focus-visible:ring-2 focus-visible:ring-neutral-500 focus-visible:ring-offset-2 disabled:opacity-60 aria-checked:border-neutral-900 aria-checked:bg-neutral-900 dark:border-neutral-500 dark:bg-neutral-700 dark:aria-checked:border-neutral-100 dark:aria-checked:bg-neutral-100"
        >
          <span
            aria-hidden="true"
            className={`inline-block size-4 rounded-full bg-white shadow transition-transform motion-reduce:transition-none dark:bg-neutral-900 ${
              enabled ? "translate-x-6" : "translate-x-1"
            } ${enabled ? "" : "dark:bg-neutral-300"}`}
          />
        </button>
        <span id={labelId} className="text-sm font-medium">
          Use memory
        </span>
      </div>
      <p id={hintId} className="text-xs text-neutral-600 dark:text-neutral-300">
        {enabled
          ? "On: replies may be given your memories, and chats learn new ones from what you tell them."
          : "Off: replies are given no memories and nothing new is learned. The memories below are kept."}
      </p>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </div>
  );
}

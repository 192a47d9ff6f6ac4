"use client";

import { useEffect, useRef } from "react";
import { limits } from "@/lib/limits";

interface ThreadTitleInputProps {
  initialTitle: string;
  /** Called once, with the trimmed title, when Enter is pressed or focus leaves. */
  onSave: (title: string) => void;
  onCancel: () => void;
}

export function ThreadTitleInput({ initialTitle, onSave, onCancel }: ThreadTitleInputProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  // Enter saves and unmounts the input, which also fires blur: settle only once.
  const settled = useRef(false);

  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, []);

  function settle(save: boolean) {
    if (settled.current) return;
    settled.current = true;
    const title = inputRef.current?.value.trim() ?? "";
    if (save && title.length > 0 && title !== initialTitle) onSave(title);
    else onCancel();
  }

  return (
    <input
      ref={inputRef}
      aria-label="Thread title"
      defaultValue={initialTitle}
      maxLength={limits.maxTitleChars}
      onKeyDown={(event) => {
        if (event.nativeEvent.isComposing) return;
        if (event.key === "Enter") {
          event.preventDefault();
          settle(true);
        } else if (event.key === "Escape") {
          event.preventDefault();
          settle(false);
        }
      }}
      onBlur={() => settle(true)}
      className="w-full rounded-lg border border-neutral-400 bg-white px-2 py-1.5 text-sm outline-none focus:border-neutral-600 dark:border-neutral-500 dark:bg-neutral-800"
    />
  );
}

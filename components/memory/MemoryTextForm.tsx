"use client";

import { useId, useState, type FormEvent, type KeyboardEvent } from "react";
import { MAX_MEMORY_CHARS } from "@/lib/protocol/memory";
import { errorMessage } from "@/lib/client/error-message";
import { ACTION, PRIMARY } from "./memory-classes";

interface MemoryTextFormProps {
  /** The textarea's name, as a screen reader says it. */
  label: string;
  initialText?: string;
  saveLabel?: string;
  /** Rejects with a message for the person when the server refuses. */
  onSave: (text: string) => Promise<void>;
  onCancel: () => void;
}

/** A memory's words, written or reworded: one fact, at most MAX_MEMORY_CHARS characters. Escape cancels. */
export function MemoryTextForm({ label, initialText = "", saveLabel = "Save", onSave, onCancel }: MemoryTextFormProps) {
  const [text, setText] = useState(initialText);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fieldId = useId();
  const hintId = useId();
  const errorId = useId();
  const words = text.trim();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!words || pending) return;
    setPending(true);
    setError(null);
    try {
      await onSave(words);
    } catch (cause) {
      setError(errorMessage(cause, "The memory could not be saved. Try again."));
      setPending(false);
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Escape" && !pending) {
      event.preventDefault();
      onCancel();
    }
  }

  return (
    <form onSubmit={(event) => void submit(event)} className="flex flex-col gap-2">
      <label htmlFor={fieldId} className="text-sm font-medium">
        {label}
      </label>
      <textarea
        id={fieldId}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        maxLength={MAX_MEMORY_CHARS}
        rows={2}
        autoFocus
        aria-describedby={error ? `${hintId} ${errorId}` : hintId}
        aria-invalid={error ? true : undefined}
        className="w-full resize-y rounded-lg border border-neutral-300 bg-white px-3 py-2 text-sm outline-none focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600 dark:bg-neutral-900"
      />
      <p id={hintId} className="text-xs text-neutral-600 dark:text-neutral-300">
        One short fact. {text.length} of {MAX_MEMORY_CHARS} characters.
      </p>
      {error && (
        <p id={errorId} role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      <div className="flex gap-2">
        <button type="submit" disabled={!words || pending} className={PRIMARY}>
          {pending ? "Saving…" : saveLabel}
        </button>
        <button type="button" onClick={onCancel} disabled={pending} className={ACTION}>
          Cancel
        </button>
      </div>
    </form>
  );
}

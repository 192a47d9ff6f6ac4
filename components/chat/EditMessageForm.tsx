"use client";

import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { limits } from "@/lib/limits";

interface EditMessageFormProps {
  text: string;
  /** A reply is on its way: the new words wait for it. */
  locked: boolean;
  onSend: (text: string) => void;
  onCancel: () => void;
}

/** A user's message, open for new words: Enter sends them (Shift+Enter a new line), Escape leaves it as it was. */
export function EditMessageForm({ text, locked, onSend, onCancel }: EditMessageFormProps) {
  const [draft, setDraft] = useState(text);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const content = draft.trim();
  const canSend = !locked && content.length > 0 && draft.length <= limits.maxMessageChars;

  useEffect(() => {
    const input = inputRef.current;
    if (!input) return;
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }, []);

  function send() {
    if (canSend) onSend(content);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Escape") {
      event.preventDefault();
      onCancel();
      return;
    }
    // Enter while an IME is composing confirms the candidate; it must not send.
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  }

  return (
    <form
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        send();
      }}
      className="flex w-full max-w-[85%] flex-col gap-2 rounded-3xl border border-neutral-300 bg-white p-3 focus-within:border-neutral-500 dark:border-neutral-600 dark:bg-neutral-800"
    >
      <textarea
        ref={inputRef}
        aria-label="Edit message"
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        rows={2}
        className="field-sizing-content max-h-60 min-h-12 w-full resize-none bg-transparent px-1 outline-none"
      />
      <div className="flex justify-end gap-2">
        <button
          type="button"
          onClick={onCancel}
          className="rounded-full border border-neutral-300 px-3 py-1.5 text-sm outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600 dark:hover:bg-neutral-700"
        >
          Cancel
        </button>
        <button
          type="submit"
          disabled={!canSend}
          className="rounded-full bg-neutral-900 px-3 py-1.5 text-sm font-medium text-white outline-none hover:bg-neutral-700 focus-visible:ring-2 focus-visible:ring-neutral-500 focus-visible:ring-offset-2 disabled:cursor-not-allowed disabled:bg-neutral-300 disabled:text-neutral-600 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300 dark:disabled:bg-neutral-600 dark:disabled:text-neutral-300"
        >
          Send
        </button>
      </div>
    </form>
  );
}

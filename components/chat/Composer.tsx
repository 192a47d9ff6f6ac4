"use client";

import { useId, useState, type FormEvent, type KeyboardEvent, type ReactNode, type Ref } from "react";
import { limits } from "@/lib/limits";
import { ArrowUpIcon, StopIcon } from "@/components/ui/icons";

interface ComposerProps {
  /** A reply is on its way: Send turns into Stop. */
  busy: boolean;
  stopping: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
  /** The message box, for the page to give it the focus. */
  inputRef?: Ref<HTMLTextAreaElement>;
  /** Beside Send: the model picker, when there is a choice. */
  picker?: ReactNode;
  /** Above the box: what the page says about the model (one no longer offered). */
  notice?: string;
}

export function Composer({ busy, stopping, onSend, onStop, inputRef, picker, notice }: ComposerProps) {
  const [text, setText] = useState("");
  const hintId = useId();
  const content = text.trim();
  // Counted in UTF-16 units, which is never fewer than the server's count, so
  // a message the client lets through is never refused for length.
  const tooLong = text.length > limits.maxMessageChars;
  const canSend = !busy && content.length > 0 && !tooLong;

  function send() {
    if (!canSend) return;
    onSend(content);
    setText("");
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    send();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Enter while an IME is composing confirms the candidate; it must not send.
    if (event.key !== "Enter" || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  }

  return (
    <form onSubmit={onSubmit} className="mx-auto w-full max-w-3xl px-4 pb-4">
      {notice && (
        <p role="status" className="mb-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-1.5 text-xs text-amber-800 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200">
          {notice}
        </p>
      )}
      <div className="flex items-end gap-2 rounded-3xl border border-neutral-200 bg-white p-2 pl-4 shadow-sm focus-within:border-neutral-400 dark:border-neutral-700 dark:bg-neutral-800 dark:focus-within:border-neutral-500">
        <textarea
          ref={inputRef}
          aria-label="Message"
          aria-describedby={tooLong ? hintId : undefined}
          aria-invalid={tooLong || undefined}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder="Message Threadline"
          rows={1}
          autoFocus
          className="field-sizing-content max-h-60 min-h-10 flex-1 resize-none bg-transparent py-2 outline-none placeholder:text-neutral-400"
        />
        {picker}
        {busy ? (
          <button
            type="button"
            onClick={onStop}
            disabled={stopping}
            aria-label="Stop"
            title="Stop generating"
            className="grid size-10 shrink-0 place-items-center rounded-full bg-neutral-900 text-white hover:bg-neutral-700 disabled:opacity-50 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300"
          >
            <StopIcon />
          </button>
        ) : (
          <button
            type="submit"
            disabled={!canSend}
            aria-label="Send"
            title="Send (Enter)"
            className="grid size-10 shrink-0 place-items-center rounded-full bg-neutral-900 text-white hover:bg-neutral-700 disabled:cursor-not-allowed disabled:bg-neutral-300 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300 dark:disabled:bg-neutral-600"
          >
            <ArrowUpIcon />
          </button>
        )}
      </div>
      <p id={hintId} aria-live="polite" className="mt-1.5 min-h-4 text-center text-xs text-neutral-500 dark:text-neutral-400">
        {tooLong ? (
          <span className="font-medium text-red-600 dark:text-red-400">
            Message is too long: {text.length.toLocaleString("en-US")} of {limits.maxMessageChars.toLocaleString("en-US")}{" "}
            characters. Shorten it to send.
          </span>
        ) : (
          "Enter to send, Shift+Enter for a new line."
        )}
      </p>
    </form>
  );
}

"use client";

import { useId, useRef, useState, useSyncExternalStore, type ClipboardEvent, type DragEvent, type FormEvent, type KeyboardEvent, type ReactNode, type Ref } from "react";
import { limits } from "@/lib/limits";
import type { AttachmentTray } from "@/lib/client/attachments";
import type { UploadedFile } from "@/lib/protocol/files";
import { ArrowUpIcon, PaperclipIcon, StopIcon } from "@/components/ui/icons";
import { AttachmentChips } from "./AttachmentChips";

/** What the file picker offers: the kinds a message may carry (the server decides by the bytes). */
const ACCEPT = "image/png,image/jpeg,image/webp,image/gif,text/plain,text/markdown,text/csv,application/json,application/pdf,.md,.markdown,.csv,.json,.txt,.pdf";

interface ComposerProps {
  /** A reply is on its way: Send turns into Stop. */
  busy: boolean;
  stopping: boolean;
  onSend: (text: string, files: UploadedFile[]) => void;
  onStop: () => void;
  /** The files the next message carries, uploaded as they are added (the thread's controller holds them). */
  tray: AttachmentTray;
  /** The message box, for the page to give it the focus. */
  inputRef?: Ref<HTMLTextAreaElement>;
  /** Beside Send: the model picker, when there is a choice. */
  picker?: ReactNode;
  /** Above the box: what the page says about the model (one no longer offered). */
  notice?: string;
  /** The model the message goes to, when it cannot see images: the page says so when one is attached. */
  blindModel?: string;
}

export function Composer({ busy, stopping, onSend, onStop, tray, inputRef, picker, notice, blindModel }: ComposerProps) {
  const [text, setText] = useState("");
  const files = useSyncExternalStore(tray.subscribe, tray.getSnapshot, tray.getSnapshot);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const hintId = useId();
  const content = text.trim();
  // Counted in UTF-16 units, which is never fewer than the server's count, so
  // a message the client lets through is never refused for length.
  const tooLong = text.length > limits.maxMessageChars;
  const canSend = !busy && content.length > 0 && !tooLong && !files.uploading;
  const imageToBlindModel = blindModel !== undefined && files.ready.some((file) => file.mediaType.startsWith("image/"));

  function send() {
    if (!canSend) return;
    onSend(content, files.ready);
    setText("");
    tray.clear();
  }

  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    // A pasted image (a screenshot) is a file; pasted text stays text.
    const pasted = Array.from(event.clipboardData.files);
    if (pasted.length === 0) return;
    event.preventDefault();
    tray.add(pasted);
  }

  const carriesFiles = (event: DragEvent) => Array.from(event.dataTransfer.types).includes("Files");
  function onDragOver(event: DragEvent<HTMLFormElement>) {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    setDragging(true);
  }
  function onDrop(event: DragEvent<HTMLFormElement>) {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    setDragging(false);
    tray.add(Array.from(event.dataTransfer.files));
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
    <form
      onSubmit={onSubmit}
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-dragging={dragging || undefined}
      className="mx-auto w-full max-w-3xl px-4 pb-4"
    >
      {notice && (
        <p role="status" className="mb-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-1.5 text-xs text-amber-800 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200">
          {notice}
        </p>
      )}
      <div
        className={`rounded-3xl border bg-white p-2 shadow-sm focus-within:border-neutral-400 dark:bg-neutral-800 dark:focus-within:border-neutral-500 ${
          dragging ? "border-blue-500 ring-2 ring-blue-200 dark:ring-blue-900" : "border-neutral-200 dark:border-neutral-700"
        }`}
      >
      <AttachmentChips items={files.items} onRemove={tray.remove} />
      <div className="flex items-end gap-2">
        <input
          ref={fileInput}
          type="file"
          multiple
          accept={ACCEPT}
          hidden
          onChange={(event) => {
            tray.add(Array.from(event.target.files ?? []));
            event.target.value = "";
          }}
        />
        <button
          type="button"
          onClick={() => fileInput.current?.click()}
          aria-label="Attach files"
          title={`Attach files (up to ${limits.maxFilesPerMessage}; or drop or paste them)`}
          className="grid size-10 shrink-0 place-items-center rounded-full text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900 dark:text-neutral-300 dark:hover:bg-neutral-700 dark:hover:text-neutral-100"
        >
          <PaperclipIcon />
        </button>
        <textarea
          ref={inputRef}
          aria-label="Message"
          aria-describedby={tooLong ? hintId : undefined}
          aria-invalid={tooLong || undefined}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
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
      </div>
      <p id={hintId} aria-live="polite" className="mt-1.5 min-h-4 text-center text-xs text-neutral-500 dark:text-neutral-400">
        {tooLong ? (
          <span className="font-medium text-red-600 dark:text-red-400">
            Message is too long: {text.length.toLocaleString("en-US")} of {limits.maxMessageChars.toLocaleString("en-US")}{" "}
            characters. Shorten it to send.
          </span>
        ) : files.uploading ? (
          "Uploading files… the message can be sent once they are up."
        ) : files.reading ? (
          "Reading a PDF's text… a message sent now waits for it."
        ) : imageToBlindModel ? (
          <span className="font-medium text-amber-700 dark:text-amber-300">
            {blindModel} cannot see images: it is told each image&apos;s name, type and size only.
          </span>
        ) : (
          "Enter to send, Shift+Enter for a new line."
        )}
      </p>
    </form>
  );
}

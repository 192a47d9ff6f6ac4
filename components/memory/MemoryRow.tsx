"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { Memory } from "@/lib/protocol/memory";
import { MemorySource } from "./MemorySource";
import { MemoryTextForm } from "./MemoryTextForm";
import { lifeText } from "./memory-words";
import { ACTION } from "./memory-classes";

interface MemoryRowProps {
  memory: Memory;
  /** Rejects with a message for the person when the server refuses the new words. */
  onEdit: (text: string) => Promise<void>;
  onDelete: () => void;
}

/** One memory: its words (reworded in place), when it was made and last used, where it came from; Edit and Delete. */
export function MemoryRow({ memory, onEdit, onDelete }: MemoryRowProps) {
  const [editing, setEditing] = useState(false);
  const textId = useId();
  const editButton = useRef<HTMLButtonElement>(null);
  // Closed (saved or cancelled): the focus goes back to Edit, where it came from.
  const [returnFocus, setReturnFocus] = useState(false);
  useEffect(() => {
    if (!returnFocus || editing) return;
    editButton.current?.focus();
    setReturnFocus(false);
  }, [returnFocus, editing]);

  const close = () => {
    setEditing(false);
    setReturnFocus(true);
  };

  return (
    <li className="flex flex-col gap-2 py-3 sm:flex-row sm:items-start sm:justify-between">
      {editing ? (
        <div className="min-w-0 flex-1">
          <MemoryTextForm
            label="Memory"
            initialText={memory.text}
            onSave={async (text) => {
              await onEdit(text);
              close();
            }}
            onCancel={close}
          />
        </div>
      ) : (
        <>
          <div className="min-w-0">
            <p id={textId} className="text-sm break-words">
              {memory.text}
            </p>
            <p className="text-xs text-neutral-600 dark:text-neutral-300">{lifeText(memory)}</p>
            <p className="text-xs text-neutral-600 dark:text-neutral-300">
              <MemorySource source={memory.source} describedBy={textId} />
            </p>
          </div>
          <div className="flex shrink-0 items-center gap-2">
            <button ref={editButton} type="button" onClick={() => setEditing(true)} aria-describedby={textId} className={ACTION}>
              Edit
            </button>
            <button type="button" onClick={onDelete} aria-describedby={textId} className={ACTION}>
              Delete
            </button>
          </div>
        </>
      )}
    </li>
  );
}

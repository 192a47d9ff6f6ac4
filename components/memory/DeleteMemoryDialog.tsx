"use client";

import type { Memory } from "@/lib/protocol/memory";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";

interface DeleteMemoryDialogProps {
  /** The memory to confirm; null keeps the dialog closed. */
  memory: Memory | null;
  onCancel: () => void;
  /** Rejects with a message for the person when the server refuses. */
  onConfirm: (memory: Memory) => Promise<void>;
}

export function DeleteMemoryDialog({ memory, onCancel, onConfirm }: DeleteMemoryDialogProps) {
  return (
    <ConfirmDialog
      subject={memory}
      title="Delete memory?"
      description={(m) => (
        <>
          <strong className="break-words">{m.text}</strong> will be forgotten for good: no reply is given it again
          {m.source ? ", and the message it came from will not teach it again." : "."}
        </>
      )}
      confirmLabel="Delete"
      failure="The memory could not be deleted."
      onCancel={onCancel}
      onConfirm={onConfirm}
    />
  );
}

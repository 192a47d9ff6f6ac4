"use client";

import type { ThreadSummary } from "@/lib/protocol/threads";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";

interface DeleteThreadDialogProps {
  /** The thread to confirm; null keeps the dialog closed. */
  thread: ThreadSummary | null;
  onCancel: () => void;
  /** Rejects with a user-facing message when the server refuses. */
  onConfirm: (thread: ThreadSummary) => Promise<void>;
}

export function DeleteThreadDialog({ thread, onCancel, onConfirm }: DeleteThreadDialogProps) {
  return (
    <ConfirmDialog
      subject={thread}
      title="Delete chat?"
      description={(t) => (
        <>
          This will delete <strong className="break-words">{t.title}</strong> and all of its messages. This cannot be undone.
        </>
      )}
      confirmLabel="Delete"
      failure="The chat could not be deleted."
      onCancel={onCancel}
      onConfirm={onConfirm}
    />
  );
}

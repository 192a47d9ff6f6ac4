"use client";

import type { DynamicToolUIPart } from "ai";
import { documentEvent } from "@/lib/client/documents";
import { FileIcon } from "@/components/ui/icons";
import { useDocuments } from "@/components/chat/ThreadWingsContext";

/** A reply's create_document or update_document call as the thread's own event: who wrote or revised which document, and a way to open it. */
export function DocumentEvent({ part, agent }: { part: DynamicToolUIPart; agent?: string }) {
  const { open, documents } = useDocuments();
  const event = documentEvent(part)!;
  const known = documents.some((d) => d.id === event.documentId);
  return (
    <div role="note" data-document-event={event.documentId} className="flex items-center gap-2 rounded-xl border border-neutral-200 px-3 py-2 text-sm dark:border-neutral-700">
      <FileIcon />
      <span className="min-w-0 flex-1">
        {agent ?? "The assistant"} {event.created ? "wrote" : "revised"} <em>{event.title}</em> (v{event.version})
      </span>
      <button
        type="button"
        onClick={() => open(event.documentId)}
        disabled={!known}
        className="shrink-0 rounded-lg border border-neutral-300 px-2 py-1 text-xs font-medium hover:bg-neutral-100 disabled:opacity-40 dark:border-neutral-600 dark:hover:bg-neutral-800"
      >
        Open <span className="sr-only">{event.title}</span>
      </button>
    </div>
  );
}

"use client";

import type { Attachment } from "@/lib/client/attachments";
import { fileSizeText } from "@/lib/protocol/file-kinds";
import { CloseIcon, FileIcon } from "@/components/ui/icons";

/** The files the next message will carry: each with its upload's progress, or why it was refused, and a way to take it out. */
export function AttachmentChips({ items, onRemove }: { items: Attachment[]; onRemove: (key: string) => void }) {
  if (items.length === 0) return null;
  return (
    <ul aria-label="Attached files" className="flex flex-wrap gap-2 px-1 pt-1">
      {items.map((item) => (
        <li
          key={item.key}
          data-attachment-state={item.state}
          className={`relative flex max-w-full items-center gap-2 overflow-hidden rounded-xl border py-1.5 pr-1 pl-1.5 text-xs ${
            item.state === "failed"
              ? "border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
              : "border-neutral-200 bg-neutral-50 dark:border-neutral-700 dark:bg-neutral-900"
          }`}
        >
          <Thumbnail item={item} />
          <span className="flex min-w-0 flex-col">
            <span className="max-w-48 truncate font-medium" title={item.name}>
              {item.name}
            </span>
            {item.state === "failed" ? (
              <span className="max-w-64">{item.error}</span>
            ) : (
              <span className="text-neutral-500 dark:text-neutral-400" data-text-state={item.uploaded?.textState}>
                {item.state === "uploading" ? `Uploading… ${Math.round(item.progress * 100)}%` : fileSizeText(item.uploaded?.size ?? item.size)}
                {item.uploaded?.textState === "pending" && " · reading its text…"}
                {item.uploaded?.textState === "failed" && " · its text could not be read: the model gets its name only"}
              </span>
            )}
          </span>
          <button
            type="button"
            onClick={() => onRemove(item.key)}
            aria-label={`Remove ${item.name}`}
            title="Remove"
            className="grid size-6 shrink-0 place-items-center rounded-full text-neutral-500 hover:bg-neutral-200 hover:text-neutral-900 focus-visible:outline-2 dark:hover:bg-neutral-700 dark:hover:text-neutral-100"
          >
            <CloseIcon />
          </button>
          {item.state === "uploading" && (
            <div
              role="progressbar"
              aria-label={`Uploading ${item.name}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(item.progress * 100)}
              className="absolute inset-x-0 bottom-0 h-0.5 bg-neutral-200 dark:bg-neutral-700"
            >
              <div className="h-full bg-blue-600 transition-[width]" style={{ width: `${Math.round(item.progress * 100)}%` }} />
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}

/** An image's preview once the server holds it (typed by its bytes); any other file's icon. */
function Thumbnail({ item }: { item: Attachment }) {
  if (item.uploaded?.mediaType.startsWith("image/")) {
    // eslint-disable-next-line @next/next/no-img-element
    return <img src={`/api/files/${item.uploaded.id}`} alt="" className="size-8 shrink-0 rounded-md object-cover" />;
  }
  return (
    <span aria-hidden="true" className="grid size-8 shrink-0 place-items-center rounded-md bg-white text-neutral-500 dark:bg-neutral-800">
      <FileIcon />
    </span>
  );
}

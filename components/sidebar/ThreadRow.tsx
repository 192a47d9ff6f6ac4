"use client";

import { useState, type ReactNode } from "react";
import Link from "next/link";
import type { ThreadListItem, ThreadSummary } from "@/lib/protocol/threads";
import { errorMessage } from "@/lib/client/error-message";
import { reminderWhen } from "@/lib/client/reminder-time";
import { BellIcon, PencilIcon, TrashIcon } from "@/components/ui/icons";
import { ThreadTitleInput } from "@/components/sidebar/ThreadTitleInput";

interface ThreadRowProps {
  thread: ThreadListItem;
  active: boolean;
  /** Rejects with a user-facing message when the server refuses the title. */
  onRename: (id: string, title: string) => Promise<void>;
  onDelete: (thread: ThreadSummary) => void;
  onNavigate: () => void;
}

export function ThreadRow({ thread, active, onRename, onDelete, onNavigate }: ThreadRowProps) {
  const [editing, setEditing] = useState(false);
  // Shown in place of the server's title while the rename is on its way.
  const [pendingTitle, setPendingTitle] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function save(title: string) {
    setEditing(false);
    setPendingTitle(title);
    setError(null);
    try {
      await onRename(thread.id, title);
    } catch (cause) {
      setError(errorMessage(cause, "The chat could not be renamed."));
    } finally {
      setPendingTitle(null);
    }
  }

  // The thread the page shows is seen as it changes: it is marked read, and never flagged meanwhile.
  const unseen = thread.unseen && !active;
  const rowTone = active
    ? "bg-neutral-200 dark:bg-neutral-800"
    : "hover:bg-neutral-100 focus-within:bg-neutral-100 dark:hover:bg-neutral-800/60 dark:focus-within:bg-neutral-800/60";

  return (
    <li>
      {editing ? (
        <div className="px-1 py-0.5">
          <ThreadTitleInput initialTitle={thread.title} onSave={(title) => void save(title)} onCancel={() => setEditing(false)} />
        </div>
      ) : (
        <div className={`group relative flex items-center rounded-lg ${rowTone}`}>
          <Link
            href={`/c/${thread.id}`}
            // A thread page reads the database; prefetching every visible row would do that for each.
            prefetch={false}
            aria-current={active ? "page" : undefined}
            onClick={onNavigate}
            className="flex min-w-0 flex-1 items-center gap-2 rounded-lg py-2 pr-16 pl-3 text-sm outline-none focus-visible:ring-2 focus-visible:ring-neutral-400"
          >
            <span className={`min-w-0 truncate ${unseen ? "font-semibold" : ""}`}>{pendingTitle ?? thread.title}</span>
            {thread.temporary && <TemporaryMark />}
            {/* Inside the link, so a screen reader hears them with the title ("Trip plans, Generating"). */}
            {thread.hasActiveGeneration ? <GeneratingMark /> : unseen && <UnseenMark />}
          </Link>
          {/* Outside the link, so the link's name is the title and its marks. Faded rather
              than hidden (display:none) so they stay reachable by keyboard and tests. */}
          <div
            className={`absolute right-1 flex gap-0.5 transition-opacity group-focus-within:opacity-100 group-hover:opacity-100 ${
              active ? "" : "[@media(hover:hover)]:opacity-0"
            }`}
          >
            <RowAction label="Rename" onClick={() => setEditing(true)}>
              <PencilIcon />
            </RowAction>
            <RowAction label="Delete" onClick={() => onDelete(thread)}>
              <TrashIcon />
            </RowAction>
          </div>
        </div>
      )}
      {thread.reminderCount > 0 && !editing && <ReminderList thread={thread} />}
      {error && (
        <p role="alert" className="px-3 pt-1 pb-2 text-xs text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </li>
  );
}

/** The thread's reminders still to come, soonest first, under its row. */
function ReminderList({ thread }: { thread: ThreadListItem }) {
  const now = new Date();
  const more = thread.reminderCount - thread.reminders.length;
  return (
    <ul aria-label={`Reminders: ${thread.title}`} className="flex flex-col gap-0.5 pt-0.5 pr-2 pb-1.5 pl-3 text-xs text-neutral-500 dark:text-neutral-400">
      {thread.reminders.map((reminder) => (
        <li key={reminder.id} className="flex min-w-0 items-center gap-1.5" title={new Date(reminder.dueAt).toLocaleString()}>
          <BellIcon />
          <span className="shrink-0">{reminderWhen(reminder.dueAt, now)}</span>
          <span className="min-w-0 truncate">
            <span aria-hidden="true">· </span>
            {reminder.text}
          </span>
        </li>
      ))}
      {more > 0 && <li className="pl-[18px]">and {more} more</li>}
    </ul>
  );
}

function RowAction({ label, onClick, children }: { label: string; onClick: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className="grid size-7 place-items-center rounded-md text-neutral-500 hover:bg-neutral-300/60 hover:text-neutral-900 dark:text-neutral-400 dark:hover:bg-neutral-700 dark:hover:text-neutral-100"
    >
      {children}
    </button>
  );
}

function GeneratingMark() {
  return (
    <span role="img" aria-label="Generating" title="Generating a reply" className="relative flex size-2 shrink-0">
      <span className="absolute inline-flex size-full animate-ping rounded-full bg-emerald-400 opacity-75 motion-reduce:animate-none" />
      <span className="relative inline-flex size-2 rounded-full bg-emerald-500" />
    </span>
  );
}

function UnseenMark() {
  return <span role="img" aria-label="New reply" title="New reply" className="size-2 shrink-0 rounded-full bg-blue-600 dark:bg-blue-400" />;
}

/** A temporary chat's mark: it neither reads nor writes memory. Inside the link, heard with the title. */
function TemporaryMark() {
  return (
    <span
      title="Temporary chat: no memory"
      className="shrink-0 rounded border border-neutral-300 px-1 text-[0.65rem] leading-4 text-neutral-600 dark:border-neutral-600 dark:text-neutral-300"
    >
      <span aria-hidden="true">Temp</span>
      <span className="sr-only">, temporary chat</span>
    </span>
  );
}

"use client";

import type { ReactNode } from "react";
import type { MessageVersions } from "@/lib/protocol/threads";
import { neighbourVersion } from "@/lib/client/versions";
import { ChevronLeftIcon, ChevronRightIcon } from "@/components/ui/icons";
import type { VersionControl } from "@/lib/client/thread-controller";
import type { DecideApproval } from "@/components/chat/ApprovalCard";

/** What a message's buttons do; one object for the whole thread, so a memoised bubble is not drawn again for them. */
export interface MessageActions {
  /** The thread the messages belong to; null until a new chat's first reply names it. */
  threadId: string | null;
  switchVersion: (messageId: string, control: VersionControl) => void;
  /** The reply answered anew, by `model` when one is picked ("Regenerate with"), else by the thread's. */
  regenerate: (replyId: string, model?: string) => void;
  edit: (messageId: string, text: string) => void;
  fork: (messageId: string) => void;
  /** The user's decision on a tool call that waits for it; rejects with the reason it was not taken. */
  decide: DecideApproval;
}

export const actionButtonClass =
  "inline-flex h-7 items-center gap-1 rounded-lg px-1.5 text-neutral-500 outline-none hover:bg-neutral-100 hover:text-neutral-800 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:bg-transparent dark:text-neutral-400 dark:hover:bg-neutral-800 dark:hover:text-neutral-100";

/** An icon button whose name is `label`; the icon is drawn, the name is read. */
export function ActionButton({
  label,
  title = label,
  onClick,
  disabled,
  children,
  ...rest
}: { label: string; title?: string; onClick: () => void; disabled?: boolean; children: ReactNode } & Record<`data-${string}`, string>) {
  return (
    <button type="button" aria-label={label} title={title} onClick={onClick} disabled={disabled} className={actionButtonClass} {...rest}>
      {children}
    </button>
  );
}

/** "‹ 2 / 3 ›": the message's place among its versions, and the versions either side of it. */
export function VersionSwitcher({ versions, locked, onSwitch }: { versions: MessageVersions; locked: boolean; onSwitch: MessageActions["switchVersion"] }) {
  const previous = neighbourVersion(versions, -1);
  const next = neighbourVersion(versions, 1);
  return (
    <div role="group" aria-label="Versions" className="flex items-center text-xs text-neutral-600 tabular-nums dark:text-neutral-300">
      <ActionButton label="Previous version" data-version="previous" disabled={locked || previous === null} onClick={() => previous && onSwitch(previous, "previous")}>
        <ChevronLeftIcon />
      </ActionButton>
      <span>
        {versions.position} / {versions.versions.length}
      </span>
      <ActionButton label="Next version" data-version="next" disabled={locked || next === null} onClick={() => next && onSwitch(next, "next")}>
        <ChevronRightIcon />
      </ActionButton>
    </div>
  );
}

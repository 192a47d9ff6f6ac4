"use client";

import { memo, useId, useState } from "react";
import type { DynamicToolUIPart } from "ai";
import { ChevronDownIcon } from "@/components/ui/icons";
import { ApprovalCard, type DecideApproval } from "@/components/chat/ApprovalCard";
import { pretty, summarize, toolDisplayName, toolStatus, type ToolContext } from "@/components/chat/tool-status";
import { TONE_DOT_CLASS, TONE_TEXT_CLASS } from "@/components/chat/tone-classes";

interface ToolCardProps extends ToolContext {
  part: DynamicToolUIPart;
  /** How the user decides on a call that waits for them; absent where the page cannot (a reply no longer the thread's last). */
  onDecide?: DecideApproval;
  /** Another reply is on its way in the thread: a decision waits. */
  locked?: boolean;
}

const PRE_CLASS =
  "max-h-72 overflow-auto rounded-lg bg-neutral-100 p-2 font-mono text-xs leading-relaxed whitespace-pre-wrap wrap-anywhere dark:bg-neutral-800/70";

/** One tool call: its name, arguments and status on one line, the full input and result behind "Details". */
export const ToolCard = memo(function ToolCard({ part, streaming, followed, onDecide, locked = false }: ToolCardProps) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const status = toolStatus(part, { streaming, followed });
  const args = summarize(part.input);
  const shown = toolDisplayName(part.toolName);

  if (status.tone === "asking" && onDecide && part.approval) {
    return <ApprovalCard toolName={part.toolName} input={part.input} approvalId={part.approval.id} onDecide={onDecide} locked={locked} />;
  }

  return (
    <div
      role="group"
      aria-label={`Tool: ${shown.name}${shown.server ? ` (MCP server ${shown.server})` : ""}`}
      className="rounded-xl border border-neutral-200 text-sm dark:border-neutral-700"
    >
      {/* The Details button stretches over the whole header (after:inset-0), so a click anywhere on it toggles. */}
      <div className="relative flex items-center gap-2 px-3 py-2">
        <span aria-hidden="true" className={`size-2 shrink-0 rounded-full ${TONE_DOT_CLASS[status.tone]}`} />
        <span className="shrink-0 font-mono text-xs font-semibold">{shown.name}</span>
        {shown.server && <span className="shrink-0 rounded bg-neutral-100 px-1 text-xs text-neutral-600 dark:bg-neutral-800 dark:text-neutral-300">{shown.server}</span>}
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-neutral-500 dark:text-neutral-400">
          {args}
        </span>
        {status.approved && (
          <span className="shrink-0 text-xs font-medium text-emerald-700 dark:text-emerald-400">
            Approved<span aria-hidden="true"> ·</span>
          </span>
        )}
        <span title={status.label} className={`max-w-[50%] shrink-0 truncate text-xs font-medium ${TONE_TEXT_CLASS[status.tone]}`}>
          {status.label}
        </span>
        <button
          type="button"
          aria-label="Details"
          aria-expanded={open}
          aria-controls={detailsId}
          onClick={() => setOpen((was) => !was)}
          className="shrink-0 rounded-md p-0.5 text-neutral-500 outline-none after:absolute after:inset-0 after:rounded-xl hover:text-neutral-800 focus-visible:ring-2 focus-visible:ring-neutral-400 dark:text-neutral-400 dark:hover:text-neutral-100"
        >
          <ChevronDownIcon className={`transition-transform ${open ? "rotate-180" : ""}`} />
        </button>
      </div>
      {status.detail && (
        <p
          className={`-mt-1 pr-3 pb-2 pl-7 text-xs ${
            status.tone === "error" ? "line-clamp-3 wrap-anywhere text-red-700 dark:text-red-400" : "truncate text-neutral-600 dark:text-neutral-300"
          }`}
        >
          {status.detail}
        </p>
      )}
      <div id={detailsId} hidden={!open} className="space-y-2 border-t border-neutral-200 px-3 py-2 dark:border-neutral-700">
        {/* Only when open: hidden text would still be in the reply's textContent. */}
        {open && (
          <>
            <div>
              <p className="mb-1 text-xs font-medium text-neutral-500 dark:text-neutral-400">Input</p>
              <pre className={PRE_CLASS}>{part.input === undefined ? "…" : pretty(part.input)}</pre>
            </div>
            {part.state === "output-available" && (
              <div>
                <p className="mb-1 text-xs font-medium text-neutral-500 dark:text-neutral-400">Output</p>
                <pre className={PRE_CLASS}>{pretty(part.output)}</pre>
              </div>
            )}
            {part.state === "output-error" && (
              <div>
                <p className="mb-1 text-xs font-medium text-red-700 dark:text-red-400">Error</p>
                <pre className={`${PRE_CLASS} text-red-800 dark:text-red-300`}>{part.errorText}</pre>
              </div>
            )}
          </>
        )}
      </div>
    </div>
  );
});

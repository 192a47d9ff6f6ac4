"use client";

import { useId, useState, type ReactNode } from "react";
import type { DynamicToolUIPart } from "ai";
import { ChevronDownIcon } from "@/components/ui/icons";
import { Markdown } from "@/components/chat/Markdown";
import { TONE_DOT_CLASS, TONE_TEXT_CLASS } from "@/components/chat/tone-classes";
import { toolStatus, type ToolContext, type ToolStatus } from "@/components/chat/tool-status";
import { asksInside, type SubAgentCall } from "@/components/chat/timeline";

interface SubAgentCardProps extends ToolContext {
  part: DynamicToolUIPart;
  call: SubAgentCall;
  /** What the sub-agent did inside the call, each entry rendered as the reply's own. */
  children: ReactNode;
}

const LABEL_CLASS = "mb-1 text-xs font-medium text-neutral-500 dark:text-neutral-400";

/**
 * Another agent called as a sub-agent: one line with its name and how the call
 * stands, its task, what it did and its result behind the toggle. Collapsed by
 * default; open while a call inside it waits for the user, whose card is in there.
 */
export function SubAgentCard({ part, call, children, streaming, followed }: SubAgentCardProps) {
  const asking = !streaming && !followed && asksInside(call);
  const [chosen, setChosen] = useState<boolean>();
  const open = chosen ?? asking;
  const bodyId = useId();
  const titleId = useId();
  const status: ToolStatus = asking ? { label: "Waiting for your approval", tone: "asking" } : toolStatus(part, { streaming, followed });
  const title = `${call.agent} (sub-agent)`;

  return (
    <div role="group" aria-labelledby={titleId} className="rounded-xl border border-neutral-200 text-sm dark:border-neutral-700">
      {/* The toggle stretches over the whole header (after:inset-0), so a click anywhere on it opens or closes the call. */}
      <div className="relative flex items-center gap-2 px-3 py-2">
        <span aria-hidden="true" className={`size-2 shrink-0 rounded-full ${TONE_DOT_CLASS[status.tone]}`} />
        <button
          id={titleId}
          type="button"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setChosen(!open)}
          className="shrink-0 rounded-md text-xs font-semibold outline-none after:absolute after:inset-0 after:rounded-xl focus-visible:ring-2 focus-visible:ring-neutral-400"
        >
          {title}
        </button>
        <span className="min-w-0 flex-1 truncate text-xs text-neutral-500 dark:text-neutral-400">{call.task}</span>
        <span title={status.label} className={`max-w-[50%] shrink-0 truncate text-xs font-medium ${TONE_TEXT_CLASS[status.tone]}`}>
          {status.label}
        </span>
        <ChevronDownIcon className={`shrink-0 text-neutral-500 transition-transform dark:text-neutral-400 ${open ? "rotate-180" : ""}`} />
      </div>
      {/* Rendered only when open: hidden text would still be in the reply's textContent (and its copy). */}
      <div id={bodyId} hidden={!open} className="space-y-3 border-t border-neutral-200 px-3 py-2 dark:border-neutral-700">
        {open && (
          <>
            {call.task !== undefined && (
              <div>
                <p className={LABEL_CLASS}>Task</p>
                <p className="text-sm whitespace-pre-wrap">{call.task}</p>
              </div>
            )}
            <div className="flex flex-col gap-3 border-l-2 border-neutral-200 pl-3 dark:border-neutral-700">{children}</div>
            {call.result !== undefined && (
              <div>
                <p className={LABEL_CLASS}>Result</p>
                <Markdown text={call.result} />
              </div>
            )}
          </>
        )}
      </div>
    </div>
  );
}

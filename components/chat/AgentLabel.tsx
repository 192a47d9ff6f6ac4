"use client";

/** The name of the agent that speaks in the section below it. */
export function AgentLabel({ name }: { name: string }) {
  return <p className="mb-1.5 text-xs font-semibold tracking-wide text-neutral-500 dark:text-neutral-400">{name}</p>;
}

interface HandoffNoteProps {
  /** The agent that handed over; unknown when no data-agent part came before. */
  from?: string;
  to: string;
  reason?: string;
}

/** One agent handed the conversation to another: a small muted line. */
export function HandoffNote({ from, to, reason }: HandoffNoteProps) {
  return (
    <p className="flex items-center gap-2 text-xs text-neutral-500 dark:text-neutral-400">
      <span aria-hidden="true" className="h-px w-4 shrink-0 bg-neutral-300 dark:bg-neutral-600" />
      <span className="min-w-0">
        {from ? `${from} handed over to ${to}` : `Handed over to ${to}`}
        {reason ? `: ${reason}` : ""}
      </span>
    </p>
  );
}

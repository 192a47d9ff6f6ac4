"use client";

import { memo, useId, useState } from "react";
import type { DynamicToolUIPart } from "ai";
import { ChevronDownIcon } from "@/components/ui/icons";
import { STOPPED_TOOL_ERROR } from "@/lib/protocol/tool-errors";

interface ToolCardProps {
  part: DynamicToolUIPart;
  /** The reply is still being written: a call without its result is running, not stopped. */
  streaming: boolean;
}

type Tone = "running" | "done" | "error" | "muted";

interface ToolStatus {
  label: string;
  /** A one-line result summary or the error. */
  detail?: string;
  tone: Tone;
}

export function toolStatus(part: DynamicToolUIPart, streaming: boolean): ToolStatus {
  switch (part.state) {
    case "input-streaming":
    case "input-available":
    case "approval-responded":
      return streaming ? { label: "Running…", tone: "running" } : { label: "Stopped", tone: "muted" };
    case "approval-requested":
      return streaming ? { label: "Waiting for approval", tone: "running" } : { label: "Stopped", tone: "muted" };
    case "output-available":
      return { label: "Done", detail: summarize(part.output), tone: "done" };
    case "output-error":
      if (part.errorText === STOPPED_TOOL_ERROR) return { label: "Stopped", tone: "muted" };
      return { label: "Error", detail: part.errorText, tone: "error" };
    case "output-denied":
      return { label: "Denied", tone: "muted" };
  }
}

const MAX_SUMMARY = 160;

function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}

/** `key: value, …` for an object (values as JSON), the text of a string, JSON for anything else. */
export function summarize(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return oneLine(value);
  if (typeof value === "object" && !Array.isArray(value)) {
    return oneLine(
      Object.entries(value)
        .map(([key, item]) => `${key}: ${compactJson(item)}`)
        .join(", "),
    );
  }
  return oneLine(compactJson(value));
}

function pretty(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

const STATUS_CLASS: Record<Tone, string> = {
  running: "text-neutral-500 dark:text-neutral-400",
  done: "text-emerald-700 dark:text-emerald-400",
  error: "text-red-700 dark:text-red-400",
  muted: "text-neutral-500 dark:text-neutral-400",
};

const DOT_CLASS: Record<Tone, string> = {
  running: "animate-pulse bg-blue-500",
  done: "bg-emerald-500",
  error: "bg-red-500",
  muted: "bg-neutral-400 dark:bg-neutral-500",
};

const PRE_CLASS =
  "max-h-72 overflow-auto rounded-lg bg-neutral-100 p-2 font-mono text-xs leading-relaxed whitespace-pre-wrap wrap-anywhere dark:bg-neutral-800/70";

/** One tool call: its name, arguments and status on one line, the full input and result behind "Details". */
export const ToolCard = memo(function ToolCard({ part, streaming }: ToolCardProps) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const status = toolStatus(part, streaming);
  const args = summarize(part.input);

  return (
    <div
      role="group"
      aria-label={`Tool: ${part.toolName}`}
      className="rounded-xl border border-neutral-200 text-sm dark:border-neutral-700"
    >
      {/* The Details button stretches over the whole header (after:inset-0), so a click anywhere on it toggles. */}
      <div className="relative flex items-center gap-2 px-3 py-2">
        <span aria-hidden="true" className={`size-2 shrink-0 rounded-full ${DOT_CLASS[status.tone]}`} />
        <span className="shrink-0 font-mono text-xs font-semibold">{part.toolName}</span>
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-neutral-500 dark:text-neutral-400">
          {args}
        </span>
        <span className={`shrink-0 text-xs font-medium ${STATUS_CLASS[status.tone]}`}>{status.label}</span>
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

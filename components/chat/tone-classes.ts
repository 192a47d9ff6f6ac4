// The colours of a call's status (a tool's or a sub-agent's): its words and its dot.
import type { Tone } from "@/components/chat/tool-status";

export const TONE_TEXT_CLASS: Record<Tone, string> = {
  running: "text-neutral-500 dark:text-neutral-400",
  done: "text-emerald-700 dark:text-emerald-400",
  error: "text-red-700 dark:text-red-400",
  muted: "text-neutral-500 dark:text-neutral-400",
  asking: "text-amber-800 dark:text-amber-300",
};

export const TONE_DOT_CLASS: Record<Tone, string> = {
  running: "animate-pulse bg-blue-500",
  done: "bg-emerald-500",
  error: "bg-red-500",
  muted: "bg-neutral-400 dark:bg-neutral-500",
  asking: "bg-amber-500",
};

"use client";

import { useEffect, useRef, useState } from "react";
import { CheckIcon, CopyIcon } from "@/components/ui/icons";

/**
 * Puts text on the clipboard. The Clipboard API only exists in secure
 * contexts, and a self-hosted app is often opened over plain http on a LAN
 * address, so a selected hidden textarea and execCommand("copy") stand in.
 */
export async function copyText(text: string): Promise<boolean> {
  if (typeof navigator !== "undefined" && typeof navigator.clipboard?.writeText === "function") {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no permission, document not focused): try the old way.
    }
  }
  return copyWithTextarea(text);
}

function copyWithTextarea(text: string): boolean {
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const textarea = document.createElement("textarea");
  textarea.value = text;
  textarea.readOnly = true; // no on-screen keyboard on touch devices
  textarea.tabIndex = -1;
  textarea.setAttribute("aria-hidden", "true");
  // Classes, not style attributes: the Content-Security-Policy allows no inline styles.
  textarea.className = "pointer-events-none fixed top-0 left-0 size-px opacity-0";
  document.body.append(textarea);
  let copied = false;
  try {
    textarea.select();
    textarea.setSelectionRange(0, text.length);
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  } finally {
    textarea.remove();
    focused?.focus({ preventScroll: true });
  }
  return copied;
}

const ICON_CLASS =
  "inline-flex h-7 items-center gap-1 rounded-lg px-1.5 text-neutral-500 outline-none hover:bg-neutral-100 hover:text-neutral-800 focus-visible:ring-2 focus-visible:ring-neutral-400 dark:text-neutral-400 dark:hover:bg-neutral-800 dark:hover:text-neutral-100";
/** With its name shown: a bordered button, as the page's other actions. */
const LABELLED_CLASS =
  "inline-flex items-center gap-1.5 rounded-lg border border-neutral-300 px-2.5 py-1.5 text-neutral-700 outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600 dark:text-neutral-200 dark:hover:bg-neutral-800";

interface CopyButtonProps {
  /** What the button copies. */
  text: string;
  /** Extra classes, e.g. to show it only on hover. */
  className?: string;
  /** Its name, shown beside the icon (e.g. "Copy link"); without one, the icon alone stands for "Copy". */
  label?: string;
}

/** An icon button named "Copy" (or its label); for a moment after a click it shows "Copied" (its name stays the same). */
export function CopyButton({ text, className = "", label }: CopyButtonProps) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function copy() {
    if (!(await copyText(text))) return;
    setCopied(true);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setCopied(false), 2000);
  }

  return (
    <button
      type="button"
      aria-label={label ?? "Copy"}
      title={copied ? "Copied" : (label ?? "Copy")}
      onClick={() => void copy()}
      className={`${label ? LABELLED_CLASS : ICON_CLASS} ${className}`}
    >
      {copied ? <CheckIcon /> : <CopyIcon />}
      {(copied || label) && (
        <span aria-hidden="true" className="text-xs">
          {copied ? "Copied" : label}
        </span>
      )}
    </button>
  );
}

"use client";

import { useEffect, type KeyboardEvent, type RefObject } from "react";

/**
 * While `open`, a press outside `root` closes it, and so does Escape inside
 * it, the focus going back to `button`: the small menus and popovers of the
 * page (Export, Regenerate with, Usage) close as one. `setOpen` is React's
 * setter, stable across renders. Returns the key handler for `root`: true
 * when it closed on Escape.
 */
export function useDismiss(
  open: boolean,
  root: RefObject<HTMLElement | null>,
  setOpen: (open: boolean) => void,
  button: RefObject<HTMLElement | null>,
): (event: KeyboardEvent) => boolean {
  useEffect(() => {
    if (!open) return;
    const closeOutside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", closeOutside);
    return () => document.removeEventListener("pointerdown", closeOutside);
  }, [open, root, setOpen]);
  return (event) => {
    if (!open || event.key !== "Escape") return false;
    event.preventDefault();
    setOpen(false);
    button.current?.focus();
    return true;
  };
}

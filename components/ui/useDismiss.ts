"use client";

import { useEffect, type RefObject } from "react";

/**
 * While `open`, a press outside `root` closes it: the small menus and
 * popovers of the page (Export, Regenerate with, Usage) close as one.
 * `setOpen` is React's setter, stable across renders.
 */
export function useDismiss(open: boolean, root: RefObject<HTMLElement | null>, setOpen: (open: boolean) => void): void {
  useEffect(() => {
    if (!open) return;
    const closeOutside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", closeOutside);
    return () => document.removeEventListener("pointerdown", closeOutside);
  }, [open, root, setOpen]);
}

"use client";

import { useCallback, useLayoutEffect, useRef, useState } from "react";

// Within this distance of the end the user counts as "at the bottom": small
// enough that a deliberate scroll up escapes, large enough to absorb rounding.
const BOTTOM_SLACK_PX = 48;

/**
 * Keeps a scroll container pinned to its end while content grows (a streaming
 * reply), until the user scrolls up; scrolling back down pins it again.
 * `contentVersion` should change whenever the content may have grown.
 */
export function useStickToBottom<T extends HTMLElement>(contentVersion: unknown) {
  const containerRef = useRef<T>(null);
  const pinnedRef = useRef(true);
  const [pinned, setPinned] = useState(true);

  const setPinnedBoth = useCallback((value: boolean) => {
    pinnedRef.current = value;
    setPinned(value);
  }, []);

  const onScroll = useCallback(() => {
    const el = containerRef.current;
    if (!el) return;
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight;
    const atBottom = distance <= BOTTOM_SLACK_PX;
    if (atBottom !== pinnedRef.current) setPinnedBoth(atBottom);
  }, [setPinnedBoth]);

  const scrollToBottom = useCallback(() => {
    const el = containerRef.current;
    if (el) el.scrollTop = el.scrollHeight;
    setPinnedBoth(true);
  }, [setPinnedBoth]);

  // Layout effect: scroll before paint, so the new text never flashes below the fold.
  useLayoutEffect(() => {
    const el = containerRef.current;
    if (el && pinnedRef.current) el.scrollTop = el.scrollHeight;
  }, [contentVersion]);

  return { containerRef, onScroll, pinned, scrollToBottom };
}

"use client";

import { useState } from "react";

/**
 * True from the first render in which `open` was true. A dialog loaded on
 * demand mounts then and stays mounted, so it can close itself (with its
 * animation and focus return) when `open` turns false again.
 */
export function useOpenedOnce(open: boolean): boolean {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened || open;
}

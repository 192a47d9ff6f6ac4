"use client";

import { createContext, useContext, useMemo, useState, type ReactNode } from "react";
import { createPortal } from "react-dom";

// The page's own actions (a thread's Export) belong in the app's header, which
// takes its own row, rather than in a bar of their own over the thread. The
// header owns the place; the page decides what goes in it.
const SlotContext = createContext<{ slot: HTMLElement | null; setSlot: (el: HTMLElement | null) => void } | null>(null);

export function HeaderActionsProvider({ children }: { children: ReactNode }) {
  const [slot, setSlot] = useState<HTMLElement | null>(null);
  const value = useMemo(() => ({ slot, setSlot }), [slot]);
  return <SlotContext.Provider value={value}>{children}</SlotContext.Provider>;
}

/** Where the header shows the page's actions. */
export function HeaderActionsSlot() {
  const context = useContext(SlotContext);
  return <div ref={context?.setSlot} className="flex shrink-0 items-center empty:hidden" />;
}

/** Shows its children in the header while the page that renders it is shown. */
export function HeaderActions({ children }: { children: ReactNode }) {
  const context = useContext(SlotContext);
  if (!context) throw new Error("HeaderActions must be used inside <HeaderActionsProvider>.");
  return context.slot ? createPortal(children, context.slot) : null;
}

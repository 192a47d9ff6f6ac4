"use client";

import { useState } from "react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useNewChat } from "@/components/chat/NewChatContext";
import { ImportThread } from "@/components/sidebar/ImportThread";
import { ThreadList } from "@/components/sidebar/ThreadList";
import { ThreadSearchBox, ThreadSearchResults } from "@/components/sidebar/ThreadSearch";
import { CloseIcon, PlusIcon } from "@/components/ui/icons";

/** The sidebar's links to the visitor's own pages (Shared links, Memory). */
const pageLink =
  "block rounded-lg px-3 py-1.5 text-sm text-neutral-700 outline-none hover:bg-neutral-200 focus-visible:ring-2 focus-visible:ring-neutral-500 aria-[current=page]:bg-neutral-200 aria-[current=page]:font-medium dark:text-neutral-200 dark:hover:bg-neutral-800 dark:aria-[current=page]:bg-neutral-800";

interface SidebarProps {
  /** Only matters on narrow screens, where the sidebar is a drawer. */
  open: boolean;
  onClose: () => void;
  /** Where the owner's share links and memory are listed: here when no account menu offers them (AUTH_MODE=open). */
  sharedLinks?: boolean;
}

export function Sidebar({ open, onClose, sharedLinks = false }: SidebarProps) {
  const { startNewChat } = useNewChat();
  const [query, setQuery] = useState("");
  const searching = query.trim().length > 0;
  const pathname = usePathname();

  return (
    <>
      {open && <div className="fixed inset-0 z-30 bg-black/40 md:hidden" onClick={onClose} aria-hidden="true" />}
      {/* Closed on a narrow screen it is invisible (not just off-screen), so it leaves the tab order too. */}
      <aside
        className={`fixed inset-y-0 left-0 z-40 flex w-72 flex-col border-r border-neutral-200 bg-neutral-50 transition-[translate,visibility] md:static md:visible md:z-auto md:translate-x-0 dark:border-neutral-800 dark:bg-neutral-950 ${
          open ? "visible translate-x-0" : "invisible -translate-x-full"
        }`}
      >
        <div className="flex items-center gap-2 p-3">
          <button
            type="button"
            onClick={() => {
              onClose();
              startNewChat();
            }}
            className="flex flex-1 items-center gap-2 rounded-lg border border-neutral-200 bg-white px-3 py-2 text-sm font-medium hover:bg-neutral-100 dark:border-neutral-700 dark:bg-neutral-900 dark:hover:bg-neutral-800"
          >
            <PlusIcon />
            New chat
          </button>
          <button
            type="button"
            onClick={onClose}
            aria-label="Close sidebar"
            className="grid size-9 place-items-center rounded-lg hover:bg-neutral-200 md:hidden dark:hover:bg-neutral-800"
          >
            <CloseIcon />
          </button>
        </div>
        <ImportThread onImported={onClose} />
        <ThreadSearchBox query={query} onQueryChange={setQuery} />
        {/* The list stays mounted while searching, so its loaded pages and scroll survive a search. */}
        {searching && (
          <div className="min-h-0 flex-1 overflow-y-auto px-2 pb-2">
            <ThreadSearchResults query={query} onNavigate={onClose} />
          </div>
        )}
        <nav aria-label="Threads" hidden={searching} className="min-h-0 flex-1 overflow-y-auto px-2 pb-2">
          <ThreadList onNavigate={onClose} />
        </nav>
        {sharedLinks && (
          <div className="border-t border-neutral-200 p-2 dark:border-neutral-800">
            {/* Not prefetched: every open tab would ask for both pages at once, on the six connections a browser keeps to a server. */}
            <Link
              href="/shares"
              prefetch={false}
              onClick={onClose}
              aria-current={pathname === "/shares" ? "page" : undefined}
              className={pageLink}
            >
              Shared links
            </Link>
            <Link
              href="/memory"
              prefetch={false}
              onClick={onClose}
              aria-current={pathname === "/memory" ? "page" : undefined}
              className={pageLink}
            >
              Memory
            </Link>
          </div>
        )}
      </aside>
    </>
  );
}

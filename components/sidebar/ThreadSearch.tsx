"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { searchThreads } from "@/lib/client/api";
import type { SearchPage, SearchResult } from "@/lib/protocol/threads";

// Waits for a pause in typing before asking the server.
const DEBOUNCE_MS = 250;

interface ThreadSearchProps {
  query: string;
  onQueryChange: (query: string) => void;
  onNavigate: () => void;
}

/** The sidebar's search box. */
export function ThreadSearchBox({ query, onQueryChange }: Omit<ThreadSearchProps, "onNavigate">) {
  return (
    <div className="px-3 pb-2">
      <input
        type="search"
        aria-label="Search threads"
        placeholder="Search chats"
        value={query}
        maxLength={200}
        onChange={(event) => onQueryChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") onQueryChange("");
        }}
        className="w-full rounded-lg border border-neutral-200 bg-white px-3 py-1.5 text-sm placeholder:text-neutral-400 focus-visible:ring-2 focus-visible:ring-neutral-400 focus-visible:outline-none dark:border-neutral-700 dark:bg-neutral-900"
      />
    </div>
  );
}

type State = { status: "idle" | "searching" } | { status: "done"; page: SearchPage } | { status: "error"; message: string };

/** Results for a non-empty query: each opens its thread at the matching message. */
export function ThreadSearchResults({ query, onNavigate }: Omit<ThreadSearchProps, "onQueryChange">) {
  const [state, setState] = useState<State>({ status: "idle" });
  const [more, setMore] = useState<SearchResult[]>([]);
  const q = query.trim();

  useEffect(() => {
    if (!q) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setState({ status: "searching" });
      setMore([]);
      searchThreads(q, { signal: controller.signal }).then(
        (page) => setState({ status: "done", page }),
        (error: Error) => {
          if (!controller.signal.aborted) setState({ status: "error", message: error.message });
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [q]);

  async function loadMore(cursor: string) {
    try {
      const page = await searchThreads(q, { cursor });
      setMore((shown) => [...shown, ...page.results]);
      setState((last) => (last.status === "done" ? { status: "done", page: { ...last.page, nextCursor: page.nextCursor } } : last));
    } catch (error) {
      setState({ status: "error", message: (error as Error).message });
    }
  }

  if (state.status === "error") return <p className="px-3 py-2 text-sm text-red-600 dark:text-red-400">{state.message}</p>;
  if (state.status !== "done") return <p className="px-3 py-2 text-sm text-neutral-500">Searching…</p>;
  const results = [...state.page.results, ...more];
  if (results.length === 0) return <p className="px-3 py-2 text-sm text-neutral-500 dark:text-neutral-400">No chats match “{q}”.</p>;
  return (
    <section aria-label="Search results">
      <ul className="flex flex-col gap-0.5">
        {results.map((result) => (
          <li key={result.threadId}>
            <Link
              href={`/c/${result.threadId}${result.messageId ? `#message-${result.messageId}` : ""}`}
              onClick={onNavigate}
              className="block rounded-lg px-3 py-2 hover:bg-neutral-200 focus-visible:ring-2 focus-visible:ring-neutral-400 focus-visible:outline-none dark:hover:bg-neutral-800"
            >
              <span className="block truncate text-sm font-medium">{result.title}</span>
              <span className="line-clamp-2 text-xs text-neutral-600 dark:text-neutral-400">
                <Highlighted text={result.snippet} ranges={result.highlights} />
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {state.page.nextCursor && (
        <button
          type="button"
          onClick={() => void loadMore(state.page.nextCursor!)}
          className="mx-3 my-2 rounded-lg px-3 py-1.5 text-sm text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800"
        >
          More results
        </button>
      )}
    </section>
  );
}

function Highlighted({ text, ranges }: { text: string; ranges: [number, number][] }) {
  const pieces: React.ReactNode[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at || end > text.length) continue;
    if (start > at) pieces.push(text.slice(at, start));
    pieces.push(
      <mark key={start} className="rounded-sm bg-yellow-200 px-0.5 text-inherit dark:bg-yellow-700/60">
        {text.slice(start, end)}
      </mark>,
    );
    at = end;
  }
  pieces.push(text.slice(at));
  return <>{pieces}</>;
}

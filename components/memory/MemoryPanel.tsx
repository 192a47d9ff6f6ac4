"use client";

import { useEffect, useId, useRef, useState, type ChangeEvent } from "react";
import { AppError } from "@threadline/history/errors";
import { addMemory, deleteMemory, editMemory, importMemories, listMemories, MEMORY_EXPORT_URL } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";
import type { Memory } from "@/lib/protocol/memory";
import { DeleteMemoryDialog } from "./DeleteMemoryDialog";
import { MemoryRow } from "./MemoryRow";
import { MemorySwitch } from "./MemorySwitch";
import { MemoryTextForm } from "./MemoryTextForm";
import { evictedText, importedText } from "./memory-words";
import { ACTION } from "./memory-classes";

/** How long typing rests before the search is asked: one request per pause, not per key. */
const SEARCH_PAUSE_MS = 250;

type Listing = { status: "loading" } | { status: "off" } | { status: "failed"; message: string } | { status: "done"; memories: Memory[]; enabled: boolean };

const isMemoryOff = (error: unknown) => error instanceof AppError && error.code === "forbidden:memory_off";

/** "Memory": what the person's chats remember about them, to search, add, reword, delete, export and import, and memory on or off (docs/memory.md). */
export function MemoryPanel() {
  const [listing, setListing] = useState<Listing>({ status: "loading" });
  const [query, setQuery] = useState("");
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Memory | null>(null);
  /** What the last add or import did, said once (what made room for it). */
  const [notice, setNotice] = useState<string | null>(null);
  /** A failed action's words, beside a list still shown. */
  const [error, setError] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [reloads, setReloads] = useState(0);
  const addButton = useRef<HTMLButtonElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const searchId = useId();

  useEffect(() => {
    const controller = new AbortController();
    // The first read goes at once; a search waits for the typing to rest.
    const timer = setTimeout(
      () => {
        listMemories(query, { signal: controller.signal }).then(
          ({ memories, enabled }) => setListing({ status: "done", memories, enabled }),
          (cause: unknown) => {
            if (controller.signal.aborted) return;
            setListing(isMemoryOff(cause) ? { status: "off" } : { status: "failed", message: errorMessage(cause, "Your memories could not be read.") });
          },
        );
      },
      query || reloads ? SEARCH_PAUSE_MS : 0,
    );
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query, reloads]);

  const update = (change: (memories: Memory[]) => Memory[]) =>
    setListing((was) => (was.status === "done" ? { ...was, memories: change(was.memories) } : was));

  async function add(text: string) {
    const { memory, evicted } = await addMemory(text);
    const gone = new Set(evicted?.map((m) => m.id));
    update((memories) => [memory, ...memories.filter((m) => !gone.has(m.id))]);
    setNotice(evictedText(evicted));
    setAdding(false);
    addButton.current?.focus();
  }

  async function edit(id: string, text: string) {
    const memory = await editMemory(id, text);
    update((memories) => memories.map((m) => (m.id === id ? memory : m)));
  }

  async function remove(memory: Memory) {
    await deleteMemory(memory.id);
    // Only once the server has let it go: a row that vanished while the memory was still given to replies would lie.
    update((memories) => memories.filter((m) => m.id !== memory.id));
    setDeleting(null);
  }

  async function importFile(event: ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    setImporting(true);
    setError(null);
    setNotice(null);
    try {
      setNotice(importedText(await importMemories(file)));
      setReloads((n) => n + 1);
    } catch (cause) {
      setError(errorMessage(cause, "The file could not be imported."));
    } finally {
      setImporting(false);
      // The same file chosen again is a change again.
      input.value = "";
    }
  }

  return (
    <div className="mx-auto flex h-full max-w-3xl flex-col gap-4 overflow-y-auto px-4 py-6">
      <h1 className="text-xl font-semibold">Memory</h1>
      {listing.status === "off" ? (
        <p role="status" className="text-sm text-neutral-700 dark:text-neutral-200">
          Memory is turned off on this server: no chat remembers anything across conversations here.
        </p>
      ) : (
        <>
          <p className="text-sm text-neutral-700 dark:text-neutral-200">
            Short facts about you that your chats remember from one conversation to the next: learned from what you tell them, or added
            here. A reply that was given some says so under it.
          </p>
          {listing.status === "done" && (
            <MemorySwitch
              enabled={listing.enabled}
              onChanged={(enabled) => setListing((was) => (was.status === "done" ? { ...was, enabled } : was))}
            />
          )}
          <div className="flex flex-wrap items-center gap-2">
            <button ref={addButton} type="button" onClick={() => setAdding(true)} aria-expanded={adding} className={ACTION}>
              Add memory
            </button>
            <a href={MEMORY_EXPORT_URL} download className={ACTION}>
              Export
            </a>
            <input ref={fileInput} type="file" accept="application/json,.json" hidden onChange={(event) => void importFile(event)} />
            <button type="button" onClick={() => fileInput.current?.click()} disabled={importing} className={ACTION}>
              {importing ? "Importing…" : "Import"}
            </button>
          </div>
          {adding && (
            <div className="rounded-lg border border-neutral-200 p-3 dark:border-neutral-700">
              <MemoryTextForm
                label="New memory"
                saveLabel="Add"
                onSave={add}
                onCancel={() => {
                  setAdding(false);
                  addButton.current?.focus();
                }}
              />
            </div>
          )}
          <p role="status" className="text-sm text-neutral-700 empty:hidden dark:text-neutral-200">
            {notice}
          </p>
          {error && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-300">
              {error}
            </p>
          )}
          <div className="flex flex-col gap-1">
            <label htmlFor={searchId} className="text-sm font-medium">
              Search memories
            </label>
            <input
              id={searchId}
              type="search"
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              maxLength={200}
              className="w-full rounded-lg border border-neutral-300 bg-white px-3 py-1.5 text-sm outline-none focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600 dark:bg-neutral-900"
            />
          </div>
          <MemoryList
            listing={listing}
            query={query}
            onEdit={edit}
            onDelete={setDeleting}
          />
        </>
      )}
      <DeleteMemoryDialog memory={deleting} onCancel={() => setDeleting(null)} onConfirm={remove} />
    </div>
  );
}

function MemoryList({
  listing,
  query,
  onEdit,
  onDelete,
}: {
  listing: Listing;
  query: string;
  onEdit: (id: string, text: string) => Promise<void>;
  onDelete: (memory: Memory) => void;
}) {
  if (listing.status === "loading") return <p role="status" className="text-sm text-neutral-600 dark:text-neutral-300">Loading your memories…</p>;
  if (listing.status === "failed")
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        {listing.message}
      </p>
    );
  if (listing.status !== "done") return null;
  if (listing.memories.length === 0)
    return (
      <p className="text-sm text-neutral-600 dark:text-neutral-300">
        {query.trim()
          ? `No memories match “${query.trim()}”.`
          : "You have no memories yet. Tell a chat something about yourself (“remember that I like tea”), or add one here."}
      </p>
    );
  return (
    <ul aria-label="Your memories" className="flex flex-col divide-y divide-neutral-200 dark:divide-neutral-800">
      {listing.memories.map((memory) => (
        <MemoryRow key={memory.id} memory={memory} onEdit={(text) => onEdit(memory.id, text)} onDelete={() => onDelete(memory)} />
      ))}
    </ul>
  );
}

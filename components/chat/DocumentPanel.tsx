"use client";

import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { fetchDocumentVersions, lineDiff, saveDocumentEdit } from "@/lib/client/documents";
import type { DocumentVersion, ThreadDocument } from "@/lib/protocol/documents";
import { ChevronLeftIcon, ChevronRightIcon, CloseIcon, DownloadIcon } from "@/components/ui/icons";
import { CopyButton } from "./CopyButton";
import { Markdown } from "./Markdown";
import { useDocuments } from "@/components/chat/ThreadWingsContext";

const BUTTON =
  "inline-flex h-8 items-center gap-1 rounded-lg px-2 text-xs font-medium text-neutral-700 hover:bg-neutral-100 focus-visible:outline-2 disabled:cursor-not-allowed disabled:opacity-40 dark:text-neutral-200 dark:hover:bg-neutral-800";

/** The open document beside the thread: its versions on the thread's path, what changed, and the owner's own edit. */
export function DocumentPanel({ threadId }: { threadId: string }) {
  const { documents, openId, close } = useDocuments();
  const document = documents.find((d) => d.id === openId);
  if (!document) return null;
  // Keyed by the document, its latest version and their count: a new version shows at once, and the older ones are read again.
  return <OpenDocument key={`${document.id}:${document.latest.version}:${document.versionCount}`} threadId={threadId} document={document} onClose={close} />;
}

/**
 * The document's versions as far as they are read: the list gives the latest,
 * the older ones come a page at a time when the owner steps back to one not
 * read yet (`wanted`, an index from the oldest), never all at once.
 */
function useVersions(threadId: string, document: ThreadDocument, wanted: number) {
  const count = document.versionCount;
  // Newest first: older[0] is the version before the latest.
  const [older, setOlder] = useState<DocumentVersion[]>([]);
  const [cursor, setCursor] = useState(document.olderCursor);
  const [error, setError] = useState<string>();
  const missing = wanted >= 0 && wanted < count - 1 - older.length && cursor !== null && error === undefined;
  useEffect(() => {
    if (!missing || cursor === null) return;
    const controller = new AbortController();
    fetchDocumentVersions(threadId, document.id, cursor, controller.signal).then(
      (page) => {
        if (controller.signal.aborted) return;
        setOlder((read) => [...read, ...page.versions]);
        setCursor(page.nextCursor);
      },
      (failure: Error) => {
        if (!controller.signal.aborted) setError(failure.message);
      },
    );
    return () => controller.abort();
  }, [missing, cursor, threadId, document.id]);
  const at = (index: number): DocumentVersion | undefined => (index === count - 1 ? document.latest : older[count - 2 - index]);
  return { count, at, loading: missing, error };
}

function OpenDocument({ threadId, document, onClose }: { threadId: string; document: ThreadDocument; onClose: () => void }) {
  const { replace } = useDocuments();
  const [index, setIndex] = useState(document.versionCount - 1);
  const [changes, setChanges] = useState(false);
  // What changed, where there is a version before this one to compare with: it is read too.
  const comparing = changes && index > 0;
  const versions = useVersions(threadId, document, comparing ? index - 1 : index);
  const { count } = versions;
  const [draft, setDraft] = useState<string>();
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const headingId = useId();
  const closeButton = useRef<HTMLButtonElement>(null);
  const version = versions.at(index);
  const previous = index > 0 ? versions.at(index - 1) : undefined;
  const latest = index === count - 1;
  // Compared once per pair of versions, within lineDiff's bounds: never on every render.
  const diff = useMemo(() => (comparing && previous && version ? lineDiff(previous.content, version.content) : undefined), [comparing, previous, version]);

  useEffect(() => closeButton.current?.focus(), []);

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === "Escape" && draft === undefined) onClose();
  }

  async function save() {
    if (draft === undefined || !version) return;
    setSaving(true);
    setError(undefined);
    try {
      replace(await saveDocumentEdit(threadId, document.id, draft, version.version));
    } catch (failure) {
      setError((failure as Error).message);
      setSaving(false);
    }
  }

  const extension = document.kind === "markdown" ? "md" : (document.language ?? "txt");
  const download = version ? `data:text/plain;charset=utf-8,${encodeURIComponent(version.content)}` : undefined;
  return (
    <aside
      aria-labelledby={headingId}
      onKeyDown={onKeyDown}
      className="fixed inset-0 z-30 flex flex-col border-l border-neutral-200 bg-white md:static md:w-[28rem] md:shrink-0 lg:w-[34rem] dark:border-neutral-700 dark:bg-neutral-900"
    >
      <div className="flex items-center gap-2 border-b border-neutral-200 px-4 py-2 dark:border-neutral-700">
        <h2 id={headingId} className="min-w-0 flex-1 truncate text-sm font-semibold">
          Document: {document.title}
        </h2>
        <button ref={closeButton} type="button" onClick={onClose} aria-label="Close document" title="Close (Escape)" className={BUTTON}>
          <CloseIcon />
        </button>
      </div>
      <div role="toolbar" aria-label="Document versions" className="flex flex-wrap items-center gap-1 border-b border-neutral-200 px-3 py-1.5 dark:border-neutral-700">
        <button type="button" aria-label="Previous version" disabled={index === 0 || draft !== undefined} onClick={() => setIndex(index - 1)} className={BUTTON}>
          <ChevronLeftIcon />
        </button>
        <span aria-live="polite" data-document-version={version?.version} className="text-xs tabular-nums">
          {index + 1} / {count}
        </span>
        <button type="button" aria-label="Next version" disabled={latest || draft !== undefined} onClick={() => setIndex(index + 1)} className={BUTTON}>
          <ChevronRightIcon />
        </button>
        {version && <span className="ml-1 text-xs text-neutral-500 dark:text-neutral-400">by {version.author}</span>}
        <span className="flex-1" />
        <button type="button" aria-pressed={comparing} disabled={index === 0 || !version || draft !== undefined} onClick={() => setChanges(!changes)} className={BUTTON}>
          Changes
        </button>
        {version && <CopyButton text={version.content} />}
        <a href={download} download={`${document.title}.${extension}`} aria-label="Download" title="Download this version" className={BUTTON}>
          <DownloadIcon />
        </a>
        {draft === undefined && (
          <button
            type="button"
            disabled={!latest || !version}
            title={latest ? "Edit: a new version by you" : "Only the latest version can be edited"}
            onClick={() => setDraft(version?.content)}
            className={BUTTON}
          >
            Edit
          </button>
        )}
      </div>
      <div className="min-h-0 flex-1 overflow-auto p-4 text-sm">
        {draft !== undefined ? (
          <div className="flex h-full flex-col gap-2">
            <textarea
              aria-label={`Edit ${document.title}`}
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              autoFocus
              className="min-h-60 flex-1 resize-none rounded-lg border border-neutral-300 bg-transparent p-2 font-mono text-xs dark:border-neutral-600"
            />
            {error && (
              <p role="alert" className="text-xs text-red-600 dark:text-red-400">
                {error}
              </p>
            )}
            <div className="flex justify-end gap-2">
              <button type="button" onClick={() => setDraft(undefined)} className={BUTTON}>
                Cancel
              </button>
              <button
                type="button"
                disabled={saving || draft === version?.content}
                onClick={() => void save()}
                className="inline-flex h-8 items-center rounded-lg bg-neutral-900 px-3 text-xs font-medium text-white disabled:opacity-40 dark:bg-neutral-100 dark:text-neutral-900"
              >
                Save as a new version
              </button>
            </div>
          </div>
        ) : !version || (comparing && !previous) ? (
          versions.error ? (
            <p role="alert" className="text-xs text-red-600 dark:text-red-400">
              {versions.error}
            </p>
          ) : (
            <p role="status" className="text-xs text-neutral-500 dark:text-neutral-400">
              Reading the version…
            </p>
          )
        ) : comparing && diff === null ? (
          <p role="status" className="text-xs text-neutral-500 dark:text-neutral-400">
            Too large to compare: these versions are too long, or differ in too many lines, to show what changed here. Step through them
            to read each.
          </p>
        ) : comparing && diff ? (
          <pre aria-label={`Changes from version ${index}`} className="font-mono text-xs leading-relaxed whitespace-pre-wrap">
            {diff.map((line, at) => (
              <div
                key={at}
                data-diff={line.kind}
                className={line.kind === "added" ? "bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200" : line.kind === "removed" ? "bg-red-50 text-red-900 line-through dark:bg-red-950 dark:text-red-200" : ""}
              >
                <span aria-hidden="true">{line.kind === "added" ? "+ " : line.kind === "removed" ? "- " : "  "}</span>
                <span className="sr-only">{line.kind === "added" ? "Added: " : line.kind === "removed" ? "Removed: " : ""}</span>
                {line.text}
              </div>
            ))}
          </pre>
        ) : document.kind === "markdown" ? (
          <Markdown text={version.content} />
        ) : (
          <pre className="font-mono text-xs whitespace-pre-wrap">
            <code>{version.content}</code>
          </pre>
        )}
      </div>
    </aside>
  );
}

// The page's side of the thread's documents: what a reply's tool calls say
// happened to one ("Researcher revised Plan (v3)"), the documents as the
// server keeps them (each one's latest version; the older ones read when the
// owner looks back), and what changed between two versions (jsdiff's line
// diff: a well-kept library for a solved problem), within bounds: the diff
// runs on the page's main thread, and two long, unlike versions would hold
// the tab for seconds.
import type { DynamicToolUIPart } from "ai";
import { diffLines } from "diff";
import type { DocumentsResponse, DocumentVersionsPage, ThreadDocument } from "@/lib/protocol/documents";

export const DOCUMENT_TOOLS = new Set(["create_document", "update_document"]);

/** What a finished create_document or update_document call did, from its output; undefined for any other part. */
export function documentEvent(part: DynamicToolUIPart): { documentId: string; title: string; version: number; created: boolean } | undefined {
  if (!DOCUMENT_TOOLS.has(part.toolName) || part.state !== "output-available") return undefined;
  const { documentId, title, version } = (part.output ?? {}) as { documentId?: unknown; title?: unknown; version?: unknown };
  if (typeof documentId !== "string" || typeof title !== "string" || typeof version !== "number") return undefined;
  return { documentId, title, version, created: part.toolName === "create_document" };
}

/** The thread's documents as of its active path (GET /api/threads/:id/documents). */
export async function fetchDocuments(threadId: string, signal?: AbortSignal): Promise<ThreadDocument[]> {
  const response = await fetch(`/api/threads/${threadId}/documents`, { signal });
  if (!response.ok) throw new Error(`The documents could not be read (HTTP ${response.status}).`);
  return ((await response.json()) as DocumentsResponse).documents;
}

/** The versions of a document older than its page's `cursor`, newest first (GET …/documents/:documentId/versions). */
export async function fetchDocumentVersions(threadId: string, documentId: string, cursor: string, signal?: AbortSignal): Promise<DocumentVersionsPage> {
  // The panel steps back one version at a time, and its Changes view wants the one before that: two a page, each up to 200,000 characters.
  const query = new URLSearchParams({ cursor, limit: "2" });
  const response = await fetch(`/api/threads/${threadId}/documents/${documentId}/versions?${query}`, { signal });
  if (!response.ok) throw new Error(`The older versions could not be read (HTTP ${response.status}).`);
  return (await response.json()) as DocumentVersionsPage;
}

/** The owner's edit, over the version they edited; the document as it stands after, or the server's words for why not. */
export async function saveDocumentEdit(threadId: string, documentId: string, content: string, basedOn: number): Promise<ThreadDocument> {
  const response = await fetch(`/api/threads/${threadId}/documents/${documentId}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content, basedOn }),
  });
  const body = (await response.json().catch(() => ({}))) as { document?: ThreadDocument; error?: { message?: string } };
  if (!response.ok || !body.document) throw new Error(body.error?.message ?? `The edit could not be saved (HTTP ${response.status}).`);
  return body.document;
}

export interface DiffLine {
  kind: "added" | "removed" | "same";
  text: string;
}

/** How far the page goes to compare two versions; past any of these it says they are too large to compare. */
export const DIFF_BOUNDS = {
  /** The two versions' characters together. */
  maxChars: 200_000,
  /** Their lines together: each is an element on the page. */
  maxLines: 10_000,
  /** Lines added and removed: jsdiff's cost grows with their square (a thousand take about a tenth of a second). */
  maxEditLength: 1_000,
  /** Time the diff may take, in milliseconds, whatever the machine. */
  timeoutMs: 200,
};

/** What changed from `before` to `after`, line by line; null when they are too large to compare within `bounds`. */
export function lineDiff(before: string, after: string, bounds = DIFF_BOUNDS): DiffLine[] | null {
  if (before.length + after.length > bounds.maxChars) return null;
  const lineCount = (value: string) => value.split("\n").length;
  if (lineCount(before) + lineCount(after) > bounds.maxLines) return null;
  const lines = (value: string) => value.replace(/\n$/, "").split("\n");
  // A last line without its newline is the same line as with one: text added after it must not mark it changed.
  const ended = (value: string) => (value === "" || value.endsWith("\n") ? value : `${value}\n`);
  const changes = diffLines(ended(before), ended(after), { maxEditLength: bounds.maxEditLength, timeout: bounds.timeoutMs });
  if (!changes) return null;
  return changes.flatMap((change) =>
    lines(change.value).map((text) => ({ kind: change.added ? "added" : change.removed ? "removed" : "same", text }) as DiffLine),
  );
}

import "server-only";
import { UNTITLED_THREAD } from "@/lib/history/title";
import { THREAD_EXPORT_FORMAT, THREAD_EXPORT_VERSION, type ExportedMessage, type ThreadExport } from "@/lib/protocol/thread-export";

/** A thread's whole tree as the repository reads it (ThreadRepository.versionTree). */
export interface VersionTree {
  thread: ThreadExport["thread"];
  messages: ExportedMessage[];
}

/** The JSON export (lib/protocol/thread-export.ts): every version of every message, oldest first. */
export function threadExport(tree: VersionTree, exportedAt: Date): ThreadExport {
  return { format: THREAD_EXPORT_FORMAT, version: THREAD_EXPORT_VERSION, exportedAt: exportedAt.toISOString(), ...tree };
}

/**
 * The name a download is saved under: the title in letters, digits, spaces,
 * dots, '-' and '_' only (accents dropped, anything else a '-'), so that no
 * browser or file system reads anything into it, and a header cannot be broken.
 */
export function exportFilename(title: string | null, extension: "json" | "md"): string {
  const base = (title ?? UNTITLED_THREAD)
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9 ._-]+/g, "-")
    .replace(/\s+/g, " ")
    .replace(/-{2,}/g, "-")
    .slice(0, 80)
    .replace(/^[\s.-]+|[\s.-]+$/g, "");
  return `${base || "thread"}.${extension}`;
}

import "server-only";
import { AppError } from "@threadline/history/errors";
import { UNTITLED_THREAD } from "@threadline/history/title";
import { limits } from "@/lib/limits";
import type { ExportSection } from "@/lib/wing";
import {
  exportedDocumentSchema,
  exportedMessageSchema,
  THREAD_EXPORT_FORMAT,
  THREAD_EXPORT_VERSION,
  ThreadFileCheck,
  type ExportedMessage,
  type FileIssue,
  type ThreadExport,
} from "@/lib/protocol/thread-export";

/** A thread's whole tree as the repository reads it (ThreadRepository.versionTree). */
export interface VersionTree {
  thread: ThreadExport["thread"];
  usage?: ThreadExport["usage"];
  files?: ThreadExport["files"];
  documents?: ThreadExport["documents"];
  messages: ExportedMessage[];
}

/**
 * The tree from the thread, its messages and the wings' sections, in the
 * file's order: the sections the messages name (files) before them, the ones
 * that name the messages (documents) after.
 */
export function treeOf(thread: VersionTree["thread"], messages: ExportedMessage[], sections: readonly ExportSection[]): VersionTree {
  const { usage, files, documents } = Object.assign({}, ...sections.map((section) => section.sections ?? {})) as NonNullable<ExportSection["sections"]>;
  return { thread, ...(usage ? { usage } : {}), ...(files ? { files } : {}), messages, ...(documents ? { documents } : {}) };
}

/** The JSON export (lib/protocol/thread-export.ts): every version of every message, oldest first. */
export function threadExport(tree: VersionTree, exportedAt: Date): ThreadExport {
  return { format: THREAD_EXPORT_FORMAT, version: THREAD_EXPORT_VERSION, exportedAt: exportedAt.toISOString(), ...tree };
}

/** How much a thread holds, as the database counts it before the thread is read for an export. */
export interface ThreadSize {
  messages: number;
  parts: number;
  /** The bytes of its parts' contents: a file of it is at least as large. */
  contentBytes: number;
}

const tooLargeToExport = (what: string) =>
  new AppError(
    "payload_too_large:export",
    `This thread is too large to export: ${what}. A thread file holds at most ${limits.maxThreadFileMessages} messages, ` +
      `${limits.maxThreadFileParts} parts and ${limits.maxThreadFileBytes} bytes, so that every file can be imported again.`,
  );

/** Refuses, before the thread is read, a thread no file within the limits can hold. */
export function refuseOversized(size: ThreadSize): void {
  if (size.messages > limits.maxThreadFileMessages) throw tooLargeToExport(`it holds ${size.messages} messages`);
  if (size.parts > limits.maxThreadFileParts) throw tooLargeToExport(`it holds ${size.parts} parts`);
  if (size.contentBytes > limits.maxThreadFileBytes) throw tooLargeToExport(`its messages hold ${size.contentBytes} bytes`);
}

/** Text is sent in pieces of about this size. */
const PIECE_CHARS = 64 * 1024;

/**
 * The JSON export as compact JSON (pretty-printing nested tool input grows
 * with the square of its depth), in pieces, each message put through the
 * import's own checks (ThreadFileCheck) and the file's bytes counted: a file
 * this returns is one POST /api/threads/import takes. One that would not be
 * is refused (413 over a limit, 409 for a message an import would refuse),
 * before anything is sent.
 */
export function threadFileBody(file: ThreadExport): Buffer[] {
  const check = new ThreadFileCheck();
  const { messages, documents = [], ...header } = file;
  const pieces: Buffer[] = [];
  // The files first, checked as an import checks them (their bytes are this server's own, typed when they came).
  for (const each of header.files ?? []) {
    const issue = check.addFile(each);
    if (issue) throw new AppError("conflict:export", `This thread cannot be exported as a file an import reads: ${issue.path.join(".")}: ${issue.message}.`);
  }
  let pending = `${JSON.stringify(header).slice(0, -1)},"messages":[`;
  let bytes = 0;
  const flush = () => {
    const piece = Buffer.from(pending, "utf8");
    bytes += piece.byteLength;
    if (bytes > limits.maxThreadFileBytes) throw tooLargeToExport(`its file would be larger than ${limits.maxThreadFileBytes} bytes`);
    pieces.push(piece);
    pending = "";
  };
  messages.forEach((message, index) => {
    const parsed = exportedMessageSchema.safeParse(message);
    const issue: FileIssue | null = parsed.success
      ? check.add(parsed.data)
      : { path: ["messages", index, ...parsed.error.issues[0].path.map(String)], message: parsed.error.issues[0].message };
    if (issue) {
      if (issue.limit) throw tooLargeToExport(`${issue.path.join(".")}: ${issue.message}`);
      throw new AppError("conflict:export", `This thread cannot be exported as a file an import reads: ${issue.path.join(".")}: ${issue.message}.`);
    }
    pending += `${index === 0 ? "" : ","}${JSON.stringify(message)}`;
    if (pending.length >= PIECE_CHARS) flush();
  });
  const last = check.finish();
  if (last) throw new AppError("conflict:export", `This thread cannot be exported as a file an import reads: ${last.path.join(".")}: ${last.message}.`);
  pending += "]";
  // The documents after the messages they belong with, checked as an import checks them.
  if (documents.length > 0) {
    pending += ',"documents":[';
    documents.forEach((document, index) => {
      const parsed = exportedDocumentSchema.safeParse(document);
      const issue: FileIssue | null = parsed.success
        ? check.addDocument(parsed.data)
        : { path: ["documents", index, ...parsed.error.issues[0].path.map(String)], message: parsed.error.issues[0].message };
      if (issue) throw new AppError("conflict:export", `This thread cannot be exported as a file an import reads: ${issue.path.join(".")}: ${issue.message}.`);
      pending += `${index === 0 ? "" : ","}${JSON.stringify(document)}`;
      if (pending.length >= PIECE_CHARS) flush();
    });
    pending += "]";
  }
  pending += "}\n";
  flush();
  return pieces;
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

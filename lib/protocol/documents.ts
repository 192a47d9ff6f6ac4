// Documents the agents write in a thread and the owner revises, as the wire
// carries them: the tools' inputs, a document with its latest version as the
// page reads it, its older versions a page at a time, and the owner's edit.
// Isomorphic: zod and types only (the page imports types from here, values
// from document-kinds.ts).
import { z } from "zod";
import { cursorParam, documentVersionsCursor } from "./cursors";

import { DOCUMENT_KINDS, MAX_DOCUMENT_CHARS, OWNER_AUTHOR, type DocumentKind } from "./document-kinds";

export { DOCUMENT_KINDS, MAX_DOCUMENT_CHARS, OWNER_AUTHOR, type DocumentKind };

export const documentTitleSchema = z
  .string({ message: "must be a string" })
  .trim()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  // eslint-disable-next-line no-control-regex
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "must be one line");

export const documentContentSchema = z
  .string({ message: "must be a string" })
  .max(MAX_DOCUMENT_CHARS, `must be at most ${MAX_DOCUMENT_CHARS} characters`)
  .refine((s) => s.isWellFormed() && !s.includes("\u0000"), "must be text");

/** One version of a document, as the page reads it. */
export interface DocumentVersion {
  version: number;
  content: string;
  /** The agent that wrote it, or "you". */
  author: string;
  /** The reply it belongs with. */
  messageId: string;
  createdAt: string;
}

/**
 * A document of the thread as the list gives it: its latest version on the
 * thread's active path and how many it has there; the older ones are read a
 * page at a time (GET …/documents/:documentId/versions?cursor=olderCursor),
 * so a document with many large versions costs the list one.
 */
export interface ThreadDocument {
  id: string;
  title: string;
  kind: DocumentKind;
  language?: string;
  latest: DocumentVersion;
  /** Its versions on the active path, the latest counted. */
  versionCount: number;
  /** The cursor of the versions before the latest; null when it is the only one. */
  olderCursor: string | null;
}

export interface DocumentsResponse {
  documents: ThreadDocument[];
}

/** GET /api/threads/:id/documents/:documentId/versions: versions on the active path, newest first; `nextCursor` reads on. */
export interface DocumentVersionsPage {
  versions: DocumentVersion[];
  nextCursor: string | null;
}

/** The most versions a page of them holds: each may be MAX_DOCUMENT_CHARS long. */
export const MAX_DOCUMENT_VERSIONS_PAGE = 10;

export const documentVersionsQuerySchema = z.object({
  /** Where the page before ended: a document's `olderCursor` or a page's `nextCursor`. */
  cursor: cursorParam(documentVersionsCursor).optional(),
  limit: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_DOCUMENT_VERSIONS_PAGE, `must be at most ${MAX_DOCUMENT_VERSIONS_PAGE}`)
    .default(5),
});

/** A document's versions on the active path without their content: what the timeline tells of them. */
export interface DocumentHistory {
  id: string;
  title: string;
  versions: Omit<DocumentVersion, "content">[];
}

/** PUT /api/threads/:id/documents/:documentId: the owner's new version, written over `basedOn` (the version they edited). */
export const documentEditSchema = z.object(
  {
    content: documentContentSchema,
    basedOn: z.number({ message: "must be the version you edited" }).int().min(1),
  },
  { message: "must be an object" },
);

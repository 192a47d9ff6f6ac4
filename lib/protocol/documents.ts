// Documents the agents write in a thread and the owner revises, as the wire
// carries them: the tools' inputs, a document with its versions as the page
// reads it, and the owner's edit. Isomorphic: zod and types only.
import { z } from "zod";

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

/** A document of the thread and its versions on the thread's active path, oldest first. */
export interface ThreadDocument {
  id: string;
  title: string;
  kind: DocumentKind;
  language?: string;
  versions: DocumentVersion[];
}

export interface DocumentsResponse {
  documents: ThreadDocument[];
}

/** PUT /api/threads/:id/documents/:documentId: the owner's new version, written over `basedOn` (the version they edited). */
export const documentEditSchema = z.object(
  {
    content: documentContentSchema,
    basedOn: z.number({ message: "must be the version you edited" }).int().min(1),
  },
  { message: "must be an object" },
);

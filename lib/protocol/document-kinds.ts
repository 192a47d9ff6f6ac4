// What the page needs of documents without the wire's checks. No zod here:
// the page imports it, and zod's schemas would come with it
// (lib/protocol/documents.ts checks the wire and re-exports these).

export const DOCUMENT_KINDS = ["markdown", "code"] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** The most one version of a document may hold. */
export const MAX_DOCUMENT_CHARS = 200_000;
/** The author of a version the owner wrote. */
export const OWNER_AUTHOR = "you";

/** The agents' tools that write or read a thread's documents: their inputs and outputs hold a document's text. */
export const DOCUMENT_TOOL_NAMES: ReadonlySet<string> = new Set(["create_document", "update_document", "read_document"]);

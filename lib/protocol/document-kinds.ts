// What the page needs of documents without the wire's checks. No zod here:
// the page imports it, and zod's schemas would come with it
// (lib/protocol/documents.ts checks the wire and re-exports these).

export const DOCUMENT_KINDS = ["markdown", "code"] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** The most one version of a document may hold. */
export const MAX_DOCUMENT_CHARS = 200_000;
/** The author of a version the owner wrote. */
export const OWNER_AUTHOR = "you";

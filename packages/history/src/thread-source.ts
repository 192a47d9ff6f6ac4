// Where a conversation came from, as a thread carries it: the entry point that
// made it, that entry point's own id for it, and what it says about it. Set
// once, when the thread is made:
//   web       the chat page (POST /api/chat with source "web")
//   api       any other client of POST /api/chat (the default there)
//   agentkit  an AgentKit network through the history package
//   import    a file with no source of its own (POST /api/threads/import)
//   fork      another thread (POST /api/threads/:id/fork): sourceId is that
//             thread, sourceMetadata.messageId the message it was forked at
//   share     a share link's snapshot ("Continue this conversation"):
//             sourceId is the link's id
// An export keeps all three, and an import of it keeps them as they were.
// Isomorphic: zod and types only.
import { z } from "zod";
import { jsonDepth } from "./json-depth";

export const THREAD_SOURCES = ["web", "api", "agentkit", "import", "fork", "share"] as const;
export type ThreadSource = (typeof THREAD_SOURCES)[number];

/** The most a source's metadata may hold, as JSON text, and how deeply it may nest: a label, not a store. */
export const MAX_SOURCE_METADATA_CHARS = 4_096;
export const MAX_SOURCE_METADATA_DEPTH = 8;

export interface ThreadOrigin {
  source: ThreadSource;
  sourceId: string | null;
  sourceMetadata: Record<string, unknown> | null;
}

export const threadSourceSchema = z.enum(THREAD_SOURCES, { message: `must be one of ${THREAD_SOURCES.map((s) => `"${s}"`).join(", ")}` });

export const sourceIdSchema = z
  .string({ message: "must be a string" })
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .refine((s) => s.isWellFormed() && !s.includes("\u0000"), "must be valid Unicode text without NUL");

export const sourceMetadataSchema = z
  .record(z.string(), z.unknown(), { message: "must be a JSON object" })
  // Depth first: zod's JSON check recurses, and the text's length is the cheap bound of everything else.
  .refine((value) => jsonDepth(value, MAX_SOURCE_METADATA_DEPTH) <= MAX_SOURCE_METADATA_DEPTH, `must not nest more than ${MAX_SOURCE_METADATA_DEPTH} deep`)
  .refine((value) => JSON.stringify(value).length <= MAX_SOURCE_METADATA_CHARS, `must be at most ${MAX_SOURCE_METADATA_CHARS} characters as JSON`)
  // Postgres's jsonb cannot hold U+0000 in a string.
  .refine((value) => !JSON.stringify(value).includes("\\u0000"), "must not hold the character U+0000")
  .pipe(z.record(z.string(), z.json()));

/** A thread's origin as the thread and list routes and the export file carry it. */
export const threadOriginFields = {
  source: threadSourceSchema,
  sourceId: sourceIdSchema.nullable(),
  sourceMetadata: sourceMetadataSchema.nullable(),
};

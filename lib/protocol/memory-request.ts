// The bodies of POST and PATCH /api/memory, PUT /api/memory/settings and POST /api/memory/import
// (lib/protocol/memory.ts has the rest). Isomorphic: zod and types only.
import { z } from "zod";
import { MAX_MEMORY_CHARS } from "./memory";
import { unknownFieldsOr } from "./unknown-fields";

const memoryText = z
  .string({ error: "must be a string" })
  .transform((text) => text.trim().replace(/\s+/g, " "))
  .pipe(
    z
      .string()
      .min(1, "must not be empty")
      .max(MAX_MEMORY_CHARS, `must be at most ${MAX_MEMORY_CHARS} characters`)
      .refine((text) => text.isWellFormed() && !text.includes("\u0000"), "must be valid Unicode text without NUL"),
  );

export const memoryTextSchema = z.strictObject({ text: memoryText }, { error: unknownFieldsOr("must be an object with text") });

export const memorySettingsSchema = z.strictObject(
  { enabled: z.boolean({ error: "must be true or false" }) },
  { error: unknownFieldsOr("must be an object with enabled") },
);

/** The most memories one file may hold: more than anyone may keep (MEMORY_PER_IDENTITY's ceiling), so the count bound decides. */
export const MAX_IMPORTED_MEMORIES = 10_000;

const isoTime = z.iso.datetime({ offset: true, error: "must be an ISO 8601 time" });

const exportedMemory = z.object(
  {
    text: memoryText,
    source: z
      .object({ threadId: z.uuid({ error: "must be a thread id" }), messageId: z.string().min(1).max(256), threadDeleted: z.boolean().optional() })
      .nullable()
      .optional(),
    createdAt: isoTime.optional(),
    lastUsedAt: isoTime.nullable().optional(),
  },
  { error: "must be an object with text" },
);

export const memoryFileSchema = z.object(
  {
    version: z.literal(1, { error: "must be 1 (a file GET /api/memory/export wrote)" }),
    exportedAt: isoTime.optional(),
    memories: z.array(exportedMemory, { error: "must be an array" }).max(MAX_IMPORTED_MEMORIES, `must hold at most ${MAX_IMPORTED_MEMORIES} memories`),
  },
  { error: "must be a memory file: { version: 1, memories: [...] }" },
);

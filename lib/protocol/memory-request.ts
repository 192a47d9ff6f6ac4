// The bodies of POST and PATCH /api/memory and PUT /api/memory/settings
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

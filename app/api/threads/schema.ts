import { z } from "zod";
import { limits } from "@/lib/limits";
import { threadSourceSchema } from "@threadline/history/thread-source";

export const listThreadsQuerySchema = z.object({
  limit: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(limits.maxThreadsPage, `must be at most ${limits.maxThreadsPage}`)
    .default(limits.defaultThreadsPage),
  cursor: z.string().min(1, "must not be empty").max(500, "is too long").optional(),
  /** Only the threads that came from there. */
  source: threadSourceSchema.optional(),
});

export const renameThreadSchema = z.object({
  title: z
    .string({ message: "must be a string" })
    .trim()
    .min(1, "must not be empty")
    .max(limits.maxTitleChars, `must be at most ${limits.maxTitleChars} characters`)
    // eslint-disable-next-line no-control-regex
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "must be a single line without control characters")
    .refine((s) => s.isWellFormed(), "must be valid Unicode text"),
});

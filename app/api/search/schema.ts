import { z } from "zod";
import { cursorParam, searchCursor } from "@/lib/protocol/cursors";

export const searchQuerySchema = z.object({
  q: z
    .string({ message: "is required" })
    .trim()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .refine((s) => s.isWellFormed(), "must be valid Unicode text"),
  limit: z.coerce.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(50, "must be at most 50").default(20),
  /** A page of search results: its place in the ranking, as the server handed it out. */
  cursor: cursorParam(searchCursor).optional(),
});

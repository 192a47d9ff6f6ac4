import { z } from "zod";

/** A page of search results: its place in the ranking, as the server handed it out. */
const offsetCursor = z
  .string()
  .regex(/^o[0-9]{1,5}$/, "is not a cursor this server handed out")
  .transform((cursor) => Number(cursor.slice(1)));

export const searchQuerySchema = z.object({
  q: z
    .string({ message: "is required" })
    .trim()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .refine((s) => s.isWellFormed(), "must be valid Unicode text"),
  limit: z.coerce.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(50, "must be at most 50").default(20),
  cursor: offsetCursor.optional(),
});

export const searchCursor = (offset: number) => `o${offset}`;

import { z } from "zod";

/** How many messages a page of a thread holds, unless the request says. */
export const MESSAGES_PAGE = 50;

/** A page of a thread's messages: those before the cursor (a place in the thread, as the server handed it out). */
export const messagesQuerySchema = z.object({
  limit: z.coerce.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(100, "must be at most 100").default(MESSAGES_PAGE),
  cursor: z
    .string()
    .regex(/^b[1-9][0-9]{0,15}$/, "is not a cursor this server handed out")
    .transform((cursor) => Number(cursor.slice(1)))
    .optional(),
});

export const messagesCursor = (before: number) => `b${before}`;

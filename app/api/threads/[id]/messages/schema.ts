import { z } from "zod";
import { cursorParam, messagesCursor } from "@/lib/protocol/cursors";
import { MESSAGES_PAGE } from "@/lib/protocol/threads";

/** A page of a thread's messages: those before the cursor (a place in the thread, as the server handed it out). */
export const messagesQuerySchema = z.object({
  limit: z.coerce.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(100, "must be at most 100").default(MESSAGES_PAGE),
  cursor: cursorParam(messagesCursor).optional(),
});

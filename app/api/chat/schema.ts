import { z } from "zod";
import { limits } from "@/lib/limits";
import { uuid } from "@/lib/http/params";

const messageId = z
  .string({ message: "must be a string" })
  .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1-128 letters, digits, '-' or '_'");

const text = z
  .string({ message: "must be a string" })
  .max(limits.maxMessageChars, `must be at most ${limits.maxMessageChars} characters`)
  .refine((s) => s.isWellFormed(), "must be valid Unicode text");

export const historyItemSchema = z.object({
  id: messageId,
  role: z.enum(["user", "assistant"], { message: "must be \"user\" or \"assistant\"" }),
  content: text,
  createdAt: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" }).optional(),
  /** The server's signature for this message, as it sent it (data-signatures, or the history it served). */
  signature: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be the signature the server sent").optional(),
});

export const chatRequestSchema = z.object({
  threadId: uuid.transform((id) => id.toLowerCase()).optional(),
  message: z.object({
    id: messageId,
    content: text.refine((s) => s.trim().length > 0, "must not be empty"),
  }),
  history: z
    .array(historyItemSchema, { message: "must be an array" })
    .max(limits.maxHistoryItems, `must hold at most ${limits.maxHistoryItems} messages`)
    .optional(),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;

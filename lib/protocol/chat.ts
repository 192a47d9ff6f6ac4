// The chat wire contract, in one place for the browser, the route and both
// runtimes: what POST /api/chat accepts, where a turn's history came from, and
// the data parts the UI message stream carries besides text. Isomorphic: zod
// and types only.
import type { UIMessage, UIMessageChunk } from "ai";
import { z } from "zod";
import { limits } from "@/lib/limits";

/** Where the model's view of the thread came from: the client's signed copy, a database read, or a new thread. */
export const HISTORY_SOURCES = ["client", "database", "new"] as const;
export type HistorySource = (typeof HISTORY_SOURCES)[number];

const messageId = z
  .string({ message: "must be a string" })
  .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1-128 letters, digits, '-' or '_'");

const text = z
  .string({ message: "must be a string" })
  .max(limits.maxMessageChars, `must be at most ${limits.maxMessageChars} characters`)
  .refine((s) => s.isWellFormed(), "must be valid Unicode text");

const threadId = z.uuid({ message: "must be a UUID" });

export const historyItemSchema = z.object({
  id: messageId,
  role: z.enum(["user", "assistant"], { message: "must be \"user\" or \"assistant\"" }),
  content: text,
  createdAt: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" }).optional(),
  /** The server's signature for this message, as it sent it (data-signatures, or the history it served). */
  signature: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be the signature the server sent").optional(),
});

export const chatRequestSchema = z.object({
  threadId: threadId.transform((id) => id.toLowerCase()).optional(),
  message: z.object({
    id: messageId,
    content: text.refine((s) => s.trim().length > 0, "must not be empty"),
  }),
  history: z
    .array(historyItemSchema, { message: "must be an array" })
    .max(limits.maxHistoryItems, `must hold at most ${limits.maxHistoryItems} messages`)
    .optional(),
});

/** The body of POST /api/chat, as the client builds it. */
export type ChatRequest = z.input<typeof chatRequestSchema>;
/** The same body once validated (thread id lower-cased). */
export type ValidChatRequest = z.output<typeof chatRequestSchema>;
export type HistoryItem = z.infer<typeof historyItemSchema>;

/** The stream's data parts by name (`data-<name>`), each with its schema; useChat checks them with these. */
export const dataPartSchemas = {
  /** First chunk of every turn: the thread, and where its history came from. */
  thread: z.object({ threadId, historySource: z.enum(HISTORY_SOURCES) }),
  /** The user's Stop ended the reply; what was written is kept. */
  status: z.object({ status: z.literal("stopped") }),
  /** A durable run retried a model step: of the reply's text parts so far, keep the first ones and drop the failed try's. */
  retry: z.object({ keepTextParts: z.number().int().min(0), dropTextParts: z.number().int().min(0) }),
  /** The server's signatures for messages it stored, for the client to send back with its copy. */
  signatures: z.object({ signatures: z.array(z.object({ id: z.string(), signature: z.string() })) }),
};

export type ChatDataParts = { [K in keyof typeof dataPartSchemas]: z.infer<(typeof dataPartSchemas)[K]> };

export interface ChatMetadata {
  /** When the message was written; the wire format for history needs it. */
  createdAt?: string;
}

export type ChatMessage = UIMessage<ChatMetadata, ChatDataParts>;

/** A data chunk of the stream; `transient`: it reaches onData, never the message's parts. */
export function dataChunk<K extends keyof ChatDataParts>(name: K, data: ChatDataParts[K]): UIMessageChunk {
  return { type: `data-${name}`, data, transient: true };
}

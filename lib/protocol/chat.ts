// The chat wire contract, in one place for the browser, the route and both
// runtimes: what POST /api/chat accepts, where a turn's history came from, and
// the data parts the UI message stream carries besides text. Isomorphic: zod
// and types only.
import type { UIMessage, UIMessageChunk } from "ai";
import { z } from "zod";
import { limits } from "@/lib/limits";
import { partSchema, RESULT_OUTCOMES, ROLES } from "@threadline/history/parts";
import { HISTORY_POLICIES, type ResolvedHistoryPolicy } from "./history-policy";
import { messageFilesSchema } from "./files";
import { UUID } from "@threadline/history/uuid";
import { sourceIdSchema, sourceMetadataSchema } from "@threadline/history/thread-source";

const TIME_ZONES = new Set(Intl.supportedValuesOf("timeZone").concat("UTC"));
export const timeZoneSchema = z
  .string({ message: "must be a string" })
  .max(100, "must be an IANA time zone such as Europe/Paris")
  .refine((zone) => TIME_ZONES.has(zone), "must be an IANA time zone such as Europe/Paris");

/** The sources a chat request may give its thread: the others are the other entry points'. */
export const CHAT_SOURCES = ["web", "api"] as const;

/** Where the model's view of the thread came from: the client's signed copy, a database read, or a new thread. */
export const HISTORY_SOURCES = ["client", "database", "new"] as const;
export type HistorySource = (typeof HISTORY_SOURCES)[number];

/** The notice of a message that waits for the thread's running turn (on either runtime) until its own starts. */
export const WAITING_NOTICE = "Waiting for the previous reply to finish…";

/** A history policy's name, as a URL, a request or the environment gives it. */
export const historyPolicyNameSchema = z.enum(HISTORY_POLICIES, { message: 'must be "all", "none" or "lastN"' });

/** A lastN length as a URL or an environment variable gives it: a whole number ≥ 0, as a number or its digits. */
export const historyLengthSchema = z.union(
  [z.number().int().min(0), z.string().regex(/^\d{1,6}$/).transform(Number)],
  { message: "must be a whole number, 0 or more" },
);

/** A message's id as a client names it. */
export const messageId = z
  .string({ message: "must be a string" })
  .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be 1-128 letters, digits, '-' or '_'");

const text = z
  .string({ message: "must be a string" })
  .max(limits.maxMessageChars, `must be at most ${limits.maxMessageChars} characters`)
  .refine((s) => s.isWellFormed(), "must be valid Unicode text");

const threadId = z.string({ message: "must be a UUID" }).regex(UUID, "must be a UUID");

const historyItem = z.object({
  id: messageId,
  role: z.enum(ROLES, { message: "must be \"user\", \"assistant\" or \"system\"" }),
  parts: z.array(partSchema, { message: "must be an array of parts" }).max(limits.maxPartsPerMessage, `must hold at most ${limits.maxPartsPerMessage} parts`),
  createdAt: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" }).optional(),
  /** Where the message sits in the thread (the seq of its first part), as the server sent it with the signature. */
  seq: z.number().int().min(1).optional(),
  /** The message it follows, as the server sent it with the signature (null: it starts the thread). */
  parentId: messageId.nullable().optional(),
  /** The server's signature for this message, as it sent it (data-signatures, or the history it served). */
  signature: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be the signature the server sent").optional(),
}).refine(
  (item) => (item.role === "system") === (item.parts.length === 1 && item.parts[0].type === "system-event") &&
    (item.role === "system" || item.parts.every((part) => part.type !== "system-event")),
  { message: "a system message must hold one system event, and only a system message may hold one", path: ["parts"] },
).refine((item) => item.role === "user" || item.parts.every((part) => part.type !== "file"), {
  message: "only a user's message may hold files",
  path: ["parts"],
}).refine((item) => item.role === "assistant" || item.parts.every((part) => part.type !== "notice"), {
  message: "only a reply may hold a notice",
  path: ["parts"],
});

/** An earlier message the client sends back. Clients of the text-only shape ({ content }) still validate: as one text part. */
export const historyItemSchema = z.preprocess((item) => {
  if (item && typeof item === "object" && !("parts" in item) && "content" in item && typeof item.content === "string") {
    const { content, ...rest } = item;
    return { ...rest, parts: [{ type: "text", text: content }] };
  }
  return item;
}, historyItem);

/** POST /api/chat's fields, each checked on its own (the page's URL gives two of them too). */
export const chatRequestFields = z.object({
  threadId: threadId.transform((id) => id.toLowerCase()).optional(),
  message: z.object({
    id: messageId,
    content: text.refine((s) => s.trim().length > 0, "must not be empty"),
    /** Files uploaded first (POST /api/files), by id: the message carries them, after its text. */
    files: messageFilesSchema.optional(),
  }),
  history: z
    .array(historyItemSchema, { message: "must be an array" })
    .max(limits.maxHistoryItems, `must hold at most ${limits.maxHistoryItems} messages`)
    .optional(),
  /** The chat page's ?historyPolicy= and ?historyLength=: a request, which the operator's setting overrides. */
  historyPolicy: z.string({ message: "must be a string" }).pipe(historyPolicyNameSchema).optional(),
  historyLength: historyLengthSchema.optional(),
  /**
   * A new version of a message already in the thread. The id of a reply:
   * regenerate it (`message` is then the user's message it answered, sent
   * again). The id of a user's message: edit it (`message` is the new text,
   * with an id of its own). `history` is the thread before `message`.
   */
  replaces: messageId.optional(),
  /**
   * Where a thread this message starts comes from (packages/history/src/thread-source.ts):
   * the chat page says "web"; any other client is "api" unless it says so.
   * Its own id for the conversation, and what it says about it, go with it.
   * Kept by the thread it makes; ignored for a thread that exists.
   */
  source: z.enum(CHAT_SOURCES, { message: '"web" or "api"' }).optional(),
  /** The user's IANA time zone (the page's): a reminder's "5 pm" is theirs. */
  timeZone: timeZoneSchema.optional(),
  /** The model to answer with, an id GET /api/models lists (`provider:model`); unset: the default. */
  model: z.string({ message: "must be a model's id, as GET /api/models lists them" }).min(1, "must not be empty").max(300, "must be at most 300 characters").optional(),
  sourceId: sourceIdSchema.optional(),
  sourceMetadata: sourceMetadataSchema.optional(),
  /**
   * A temporary chat: the thread this message starts neither reads nor
   * writes the person's memory, and says so. Kept by the thread it makes;
   * ignored for a thread that has messages already.
   */
  temporary: z.boolean({ message: "must be true or false" }).optional(),
});

export const chatRequestSchema = chatRequestFields.refine((body) => body.replaces === undefined || body.threadId !== undefined, {
  message: "a new version needs the thread it belongs to",
  path: ["threadId"],
});

/** The body of POST /api/chat, as the client builds it. */
export type ChatRequest = Omit<z.input<typeof chatRequestSchema>, "history"> & { history?: HistoryItem[] };
/** The same body once validated (thread id lower-cased). */
export type ValidChatRequest = z.output<typeof chatRequestSchema>;
export type HistoryItem = z.input<typeof historyItem>;

/** The stream's data parts by name (`data-<name>`), each with its schema: the types the page reads them as; the server checks what it relays. */
export const dataPartSchemas = {
  /** First chunk of every turn: the thread, and where its history came from. */
  thread: z.object({ threadId, historySource: z.enum(HISTORY_SOURCES) }),
  /** What the turn is doing before its reply starts, in a few words: waiting for the thread's running turn, summarizing earlier messages first. */
  notice: z.object({ text: z.string() }),
  /** The user's Stop ended the reply; what was written is kept. */
  status: z.object({ status: z.literal("stopped") }),
  /** A durable run retried a step: the parts an earlier attempt of it wrote (tagged with the step and attempt) are withdrawn. */
  retry: z.object({ step: z.string(), attempt: z.number().int().min(1) }),
  /** Kept in the message: the agent that writes the parts after it. */
  agent: z.object({ name: z.string() }),
  /** Kept in the message: the person's budget ended the reply, or kept it from starting (lib/budgets/); `resetsAt` is when it renews. */
  budget: z.object({ text: z.string().max(1000), resetsAt: z.string().max(40).optional() }),
  /** Kept in the message: the speaking agent handed the conversation over. */
  handoff: z.object({ to: z.string(), reason: z.string().optional() }),
  /**
   * How the user decided on a tool call that asked first, sent right before
   * its result (tool-output-available when approved, else tool-output-denied,
   * whose AI SDK chunk carries no reason): the page shows "Approved",
   * "Denied: <reason>", "Expired"…, as the stored reply's tool part says it.
   */
  approval: z.object({
    toolCallId: z.string(),
    id: z.string(),
    // A decision's outcome, or "forked": what a stored result may say (a fork's copy of a call its source waited on).
    outcome: z.enum(RESULT_OUTCOMES),
    reason: z.string().optional(),
  }),
  /** The server's signatures for messages it stored, for the client to send back with its copy. */
  signatures: z.object({
    signatures: z.array(
      z.object({ id: z.string(), signature: z.string(), seq: z.number().int().min(1), parentId: z.string().nullable().optional() }),
    ),
  }),
  /** A system message's one part: the summary compaction wrote of the messages up to `throughSeq`. */
  summary: z.object({
    text: z.string(),
    throughSeq: z.number().int().min(1),
    summarizedMessages: z.number().int().min(1),
    /** It came with an imported file (the model reads it as quoted data). */
    imported: z.literal(true).optional(),
  }),
  /**
   * The thread's latest summary, when the client's copy lacked it (it was
   * written after the client's last turn): the client puts it into its copy,
   * at `seq`, and from then on sends only what follows `throughSeq`.
   */
  compacted: z.object({
    id: z.string(),
    seq: z.number().int().min(1),
    parentId: z.string().nullable().optional(),
    signature: z.string(),
    createdAt: z.string(),
    text: z.string(),
    throughSeq: z.number().int().min(1),
    summarizedMessages: z.number().int().min(1),
    imported: z.literal(true).optional(),
  }),
  /** The memories the reply was given (lib/memory/), sent right after its start: its "Memory used" line and the debug panel. */
  memory: z.object({
    memories: z.array(
      z.object({
        id: z.string(),
        text: z.string(),
        source: z.object({ threadId: z.string(), messageId: z.string(), threadDeleted: z.boolean().optional() }).nullable(),
      }),
    ),
  }),
  /** What the model is given this turn: the history policy in force and the size of its window (the debug panel). */
  history: z.object({
    policy: z.enum(HISTORY_POLICIES),
    length: z.number().int().min(0),
    source: z.enum(["environment", "URL", "default"]),
    threadMessages: z.number().int().min(0),
    sentMessages: z.number().int().min(0),
    sentTokens: z.number().int().min(0),
    /** The most any agent reads: the last this many user messages and what follows each; null for all of the thread. */
    window: z.number().int().min(1).nullable(),
  }),
};

/**
 * A thread's turn that has not finished well, as the thread page learns it:
 * still running (the page waits for it and offers Stop) or interrupted (the
 * page offers Retry, which sends the same message again).
 */
export interface PendingTurn {
  messageId: string;
  state: "running" | "interrupted";
}

/**
 * The chat page's debug panel before a message is sent: the history setting
 * the next turn will use and the thread's size as the page was rendered, or
 * why the next turn would be refused.
 */
export type NextTurnHistory = (ResolvedHistoryPolicy & { threadMessages: number }) | { error: string };

export type ChatDataParts = { [K in keyof typeof dataPartSchemas]: z.infer<(typeof dataPartSchemas)[K]> };

export interface ChatMetadata {
  /** When the message was written; the wire format for history needs it. */
  createdAt?: string;
  /** The user pressed Stop: the reply holds what was written until then. */
  stopped?: boolean;
  /** The model's stream broke off: the reply holds what it had written. */
  incomplete?: boolean;
  /** A reply: the model that wrote it (`provider:model`). */
  model?: string;
  /** Posted by a reminder: it answers no message, so it offers no Regenerate. */
  reminder?: boolean;
}

export type ChatMessage = UIMessage<ChatMetadata, ChatDataParts>;

/** Data parts that stay in the message; every other one is transient (it reaches onData only). */
const KEPT_DATA_PARTS = new Set<keyof ChatDataParts>(["agent", "handoff", "budget"]);

/** A data chunk of the stream. A kept part with an `id` replaces the earlier one of that id (a retried step's). */
export function dataChunk<K extends keyof ChatDataParts>(name: K, data: ChatDataParts[K], id?: string): UIMessageChunk {
  if (KEPT_DATA_PARTS.has(name)) return { type: `data-${name}`, data, ...(id ? { id } : {}) };
  return { type: `data-${name}`, data, transient: true };
}

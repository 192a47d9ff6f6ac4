// What a message is made of. A reply is an ordered list of parts (its text,
// the model's reasoning, each tool call and its result, a hand-over from one
// agent to another), each tagged with the agent that produced it; a user's
// message is its text and the files it carries; a system message holds one system event (the
// summary of earlier messages that compaction wrote). Parts are what the database stores, what the
// client sends back as its copy of the thread, and what the server signs.
// Isomorphic: zod and types only. lib/protocol/parts-codec.ts converts parts to and
// from stored rows, model messages and UI parts; a new part type is added here
// and there, and nowhere else.
import { z } from "zod";
import { jsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from "./json-depth";
import { MAX_APPROVAL_REASON } from "./parts-plain";

export { filesOf, MAX_APPROVAL_REASON } from "./parts-plain";

export const ROLES = ["user", "assistant", "system"] as const;
export type Role = (typeof ROLES)[number];

const agentName = z.string().regex(/^[A-Za-z][A-Za-z0-9 _-]{0,63}$/, "must be an agent's name");
// Tool names as the model providers accept them.
const toolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be a tool's name");
const toolCallId = z.string().min(1, "must not be empty").max(256, "must be at most 256 characters");

/**
 * A tool's input or output: JSON nested at most MAX_JSON_DEPTH deep (packages/history/src/json-depth.ts).
 * The depth is checked first: zod's own JSON check recurses, and a deep enough value would overflow its stack.
 */
const toolJson = z
  .unknown()
  .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, tooDeepMessage)
  .pipe(z.json());

/**
 * Where a part runs inside a sub-agent's call: the call it runs in
 * (`parentCallId`, the id of the call_agent tool call) and the outermost one
 * (`rootCallId`). A part of the turn's own agents has neither. A call's own
 * id is its `toolCallId`.
 */
const insideCall = {
  parentCallId: toolCallId.optional(),
  rootCallId: toolCallId.optional(),
};

const textPart = z.object({ type: z.literal("text"), text: z.string(), agentName: agentName.optional(), ...insideCall });

const reasoningPart = z.object({
  type: z.literal("reasoning"),
  text: z.string(),
  /** How long the model thought; the UI says "Thought for N s". */
  durationMs: z.number().int().min(0).optional(),
  agentName: agentName.optional(),
  ...insideCall,
});

/** The user's approval a tool call asked for (its id: what the decision names). */
const approvalRequest = z.object({ id: z.uuid() });

/** How the user's approval of a call was decided: the result's outcome says why it ran or did not. */
export const APPROVAL_OUTCOMES = ["approved", "denied", "expired", "stopped", "moved_on"] as const;
export type ApprovalOutcome = (typeof APPROVAL_OUTCOMES)[number];

/**
 * What a call's result may say of its approval: a decision, or "forked": the
 * call is a fork's copy of one its source thread still waited on. The
 * approval stays the source's, so nobody decides it in the copy; no decision
 * is ever recorded as "forked".
 */
export const RESULT_OUTCOMES = [...APPROVAL_OUTCOMES, "forked"] as const;
export type ResultOutcome = (typeof RESULT_OUTCOMES)[number];

const approvalDecision = z.object({
  id: z.uuid(),
  outcome: z.enum(RESULT_OUTCOMES),
  reason: z.string().min(1).max(MAX_APPROVAL_REASON).optional(),
});

const toolCallPart = z.object({
  type: z.literal("tool-call"),
  toolCallId,
  toolName,
  input: toolJson,
  /** The call waits (or waited) for the user's approval before it runs. */
  approval: approvalRequest.optional(),
  agentName: agentName.optional(),
  ...insideCall,
});

/** The outcome of a tool call: its output, or the error the model is told about. Exactly one of them. */
const toolResultPart = z
  .object({
    type: z.literal("tool-result"),
    toolCallId,
    toolName,
    output: toolJson.optional(),
    error: z.string().optional(),
    /** The user's decision on a call that asked first: an approved call's output, or the denial the model reads. */
    approval: approvalDecision.optional(),
    agentName: agentName.optional(),
    ...insideCall,
  })
  .refine((part) => (part.output === undefined) !== (part.error === undefined), "must hold either an output or an error");

/** One agent handed the conversation to another (the router follows it). */
const handoffPart = z.object({
  type: z.literal("handoff"),
  to: agentName,
  reason: z.string().min(1).optional(),
  agentName: agentName.optional(),
});

/**
 * Something that happened to the thread rather than a message in it. The one
 * event so far: compaction summarized the messages up to `throughSeq` (the
 * model then reads this summary instead of them; they stay stored).
 */
const systemEventPart = z.object({
  type: z.literal("system-event"),
  event: z.literal("compaction"),
  /** The summary of every user and assistant message up to `throughSeq`. */
  text: z.string(),
  throughSeq: z.number().int().min(1),
  /** How many user and assistant messages it stands for, from the start of the thread. */
  summarizedMessages: z.number().int().min(1),
  /**
   * The summary came in with an imported file, not from this server's
   * compaction: anyone could have written it, so the model reads it as quoted
   * data in a user message, never as a system message. An import sets it on
   * every summary, whatever the file says.
   */
  imported: z.literal(true).optional(),
});

/** Why the server spoke in a reply instead of the model: its budget ran out (lib/budgets/). */
export const NOTICE_KINDS = ["budget"] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/**
 * What the server says in a reply where the model did not write: the reply
 * ended, or never started, because the person's budget was used up. Shown to
 * the user; never given to a model, which did not write it.
 */
const noticePart = z.object({
  type: z.literal("notice"),
  notice: z.enum(NOTICE_KINDS),
  text: z.string().min(1).max(1000),
  /** When what ran out comes back (ISO), for the page to say in the reader's own time. */
  resetsAt: z.string().max(40).optional(),
});

/** The types a file may have, as its bytes say (lib/files/file-type.ts decides): images, text of four kinds, PDF. */
export const FILE_MEDIA_TYPES = [
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/gif",
  "text/plain",
  "text/markdown",
  "text/csv",
  "application/json",
  "application/pdf",
] as const;
export type FileMediaType = (typeof FILE_MEDIA_TYPES)[number];

/** A file's name as the user gave it: no path, no control characters. */
export const fileNameSchema = z
  .string({ message: "must be a string" })
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .refine((name) => name.isWellFormed() && !/[\u0000-\u001f\u007f/\\]/.test(name), "must be a file's name, with no path or control characters");

/**
 * A file the user attached to their message: what it is. Its bytes stay in
 * the owner's files (stored once per content), read by `fileId` for the one
 * who owns them only. Only a user's message holds files, after its text.
 */
const filePart = z.object({
  type: z.literal("file"),
  fileId: z.uuid(),
  name: fileNameSchema,
  mediaType: z.enum(FILE_MEDIA_TYPES),
  size: z.number().int().min(0),
});

export const partSchema = z.discriminatedUnion("type", [textPart, reasoningPart, toolCallPart, toolResultPart, handoffPart, systemEventPart, filePart, noticePart]);

export type Part = z.infer<typeof partSchema>;
export type TextPart = Extract<Part, { type: "text" }>;
export type ReasoningPart = Extract<Part, { type: "reasoning" }>;
export type ToolCallPart = Extract<Part, { type: "tool-call" }>;
export type ToolResultPart = Extract<Part, { type: "tool-result" }>;
export type HandoffPart = Extract<Part, { type: "handoff" }>;
export type SystemEventPart = Extract<Part, { type: "system-event" }>;
export type FilePart = Extract<Part, { type: "file" }>;
export type NoticePart = Extract<Part, { type: "notice" }>;
export type JsonValue = z.infer<ReturnType<typeof z.json>>;

/** A message of a thread, as the model and the signatures see it. */
export interface ThreadMessage {
  id: string;
  role: Role;
  parts: Part[];
}

/** The user's new message as the client sent it. */
export interface UserMessage {
  /** The client's id for this message: the idempotency key. */
  id: string;
  role: "user";
  content: string;
  /** The files it carries, after its text: each one the owner's, as their upload stored it. */
  files?: FilePart[];
}

/** The text of a message: its text parts, in order, but not what a sub-agent wrote inside its call (the flat views leave it out). */
export function textOf(message: Pick<ThreadMessage, "parts">): string {
  return message.parts.map((part) => (part.type === "text" && part.parentCallId === undefined ? part.text : "")).join("");
}

export const userMessage = (id: string, text: string, files: FilePart[] = []): ThreadMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text }, ...files],
});


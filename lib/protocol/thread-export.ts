// A thread as a file: what GET /api/threads/:id/export?format=json writes and
// POST /api/threads/import reads back. Version 1 of the format:
//
//   { format: "threadline.thread", version: 1, exportedAt,
//     thread: { title, createdAt, updatedAt },
//     messages: [{ id, parentId, role, parts, status, createdAt, chosen, seq }] }
//
// `messages` holds every version of every message (the whole tree, not only
// the path the thread shows), oldest first (by seq), each with every part
// (lib/protocol/parts.ts). A message follows its `parentId` (null for a first
// message); versions of one message share a parent and `chosen` marks the one
// selected among them, so the path the thread shows is the chosen first
// message, its chosen child, and so on. `seq` is where the message's first
// part sits; each part takes one, so a summary's `throughSeq` names a part
// of the file. Isomorphic: zod, types and pure functions only.
import { z } from "zod";
import { limits } from "@/lib/limits";
import { partSchema, ROLES, type Part, type Role } from "./parts";
import type { ReplyStatus } from "./threads";

export const THREAD_EXPORT_FORMAT = "threadline.thread";
export const THREAD_EXPORT_VERSION = 1;

/** The ?format= values of GET /api/threads/:id/export. */
export const EXPORT_FORMATS = ["json", "markdown"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedMessage {
  /** The message's id in the thread it was exported from; an import gives every message a new one. */
  id: string;
  parentId: string | null;
  role: Role;
  parts: Part[];
  status: ReplyStatus;
  createdAt: string;
  /** The selected version among the messages of the same parent. */
  chosen: boolean;
  seq: number;
}

export interface ThreadExport {
  format: typeof THREAD_EXPORT_FORMAT;
  version: typeof THREAD_EXPORT_VERSION;
  exportedAt: string;
  /** title null: the thread has none yet (it shows as "New chat"). */
  thread: { title: string | null; createdAt: string; updatedAt: string };
  messages: ExportedMessage[];
}

const dateTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" });

const title = z
  .string({ message: "must be a string or null" })
  .min(1, "must not be empty")
  .max(limits.maxTitleChars, `must be at most ${limits.maxTitleChars} characters`)
  // eslint-disable-next-line no-control-regex
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "must be a single line without control characters")
  .refine((s) => s.isWellFormed(), "must be valid Unicode text");

const exportedId = z.string({ message: "must be a string" }).min(1, "must not be empty").max(256, "must be at most 256 characters");

const exportedMessage = z.object({
  id: exportedId,
  parentId: exportedId.nullable(),
  role: z.enum(ROLES, { message: 'must be "user", "assistant" or "system"' }),
  parts: z
    .array(partSchema, { message: "must be an array of parts" })
    .min(1, "must hold at least one part")
    .max(limits.maxPartsPerMessage, `must hold at most ${limits.maxPartsPerMessage} parts`),
  status: z.enum(["complete", "stopped", "incomplete"], { message: 'must be "complete", "stopped" or "incomplete"' }),
  createdAt: dateTime,
  chosen: z.boolean({ message: "must be true or false" }),
  seq: z.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1"),
});

/**
 * The file's rules beyond each field's shape, each broken one named with its
 * place: a tree whose messages come after their parents, in seq order with a
 * seq for each part, one chosen version per parent, parts that fit their
 * message's role, and summaries that stand for earlier parts.
 */
function checkTree(messages: ExportedMessage[], ctx: z.RefinementCtx) {
  const issue = (index: number, field: (string | number)[], message: string) =>
    ctx.addIssue({ code: "custom", path: ["messages", index, ...field], message });
  const seen = new Set<string>();
  const chosenOf = new Set<string | null>();
  const partSeqs = new Set<number>();
  let parts = 0;
  let nextSeq = 1;
  messages.forEach((message, i) => {
    if (seen.has(message.id)) return issue(i, ["id"], `"${message.id}" is the id of an earlier message: ids must be unique`);
    if (message.parentId !== null && !seen.has(message.parentId)) {
      return issue(i, ["parentId"], `"${message.parentId}" is not the id of an earlier message of the file`);
    }
    if (message.seq < nextSeq) return issue(i, ["seq"], `must be at least ${nextSeq}: after the message before it, one seq for each of its parts`);
    if (message.chosen && chosenOf.has(message.parentId)) {
      return issue(i, ["chosen"], "another version of this message (the same parentId) is already chosen");
    }
    const systemEvent = message.parts.findIndex((part) => part.type === "system-event");
    if (message.role === "system" && (message.parts.length !== 1 || systemEvent !== 0)) {
      return issue(i, ["parts"], "a system message must hold exactly one system-event part");
    }
    if (message.role !== "system" && systemEvent >= 0) {
      return issue(i, ["parts", systemEvent], 'a system-event part belongs only in a system message (role "system")');
    }
    const notText = message.parts.findIndex((part) => part.type !== "text");
    if (message.role === "user" && notText >= 0) return issue(i, ["parts", notText], "a user message holds text parts only");
    const summary = message.parts[0];
    if (summary.type === "system-event" && !partSeqs.has(summary.throughSeq)) {
      return issue(i, ["parts", 0, "throughSeq"], "must be the seq of a part of an earlier message of the file");
    }
    parts += message.parts.length;
    if (parts > limits.maxImportParts) return issue(i, ["parts"], `the file holds more than ${limits.maxImportParts} parts in all`);
    seen.add(message.id);
    if (message.chosen) chosenOf.add(message.parentId);
    for (let k = 0; k < message.parts.length; k++) partSeqs.add(message.seq + k);
    nextSeq = message.seq + message.parts.length;
  });
  // With no chosen first message the thread would show nothing (and no list would show the thread).
  if (messages.length > 0 && !chosenOf.has(null)) {
    ctx.addIssue({ code: "custom", path: ["messages"], message: "one first message (parentId null) must be chosen" });
  }
}

/** A file POST /api/threads/import takes: its shape, then its tree. */
export const threadExportSchema = z
  .object({
    format: z.literal(THREAD_EXPORT_FORMAT, { message: `must be "${THREAD_EXPORT_FORMAT}": this is not a Threadline thread export` }),
    version: z.literal(THREAD_EXPORT_VERSION, { message: `must be ${THREAD_EXPORT_VERSION}: the version of the export format this server reads` }),
    exportedAt: dateTime,
    thread: z.object({ title: title.nullable(), createdAt: dateTime, updatedAt: dateTime }, { message: "must be an object" }),
    messages: z
      .array(exportedMessage, { message: "must be an array of messages" })
      .min(1, "must hold at least one message")
      .max(limits.maxImportMessages, `must hold at most ${limits.maxImportMessages} messages`),
  }, { message: "must be a JSON object" })
  .superRefine((file, ctx) => checkTree(file.messages, ctx));

/**
 * The path a thread shows: its chosen first message, that message's chosen
 * child, and so on, in order. The database keeps the same path as its
 * `active` rows (migrations/1733529600000_versions.sql).
 */
export function chosenPath<M extends Pick<ExportedMessage, "id" | "parentId" | "chosen">>(messages: M[]): M[] {
  const chosenChild = new Map<string | null, M>();
  for (const message of messages) if (message.chosen && !chosenChild.has(message.parentId)) chosenChild.set(message.parentId, message);
  const path: M[] = [];
  for (let next = chosenChild.get(null); next && path.length < messages.length; next = chosenChild.get(next.id)) path.push(next);
  return path;
}

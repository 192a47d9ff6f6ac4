// A thread as a file: what GET /api/threads/:id/export?format=json writes and
// POST /api/threads/import reads back. Version 1 of the format:
//
//   { format: "threadline.thread", version: 1, exportedAt,
//     thread: { title, createdAt, updatedAt, source?, sourceId?, sourceMetadata? },
//     files?: [{ id, name, mediaType, size, data }],
//     messages: [{ id, parentId, role, parts, status, createdAt, chosen, seq, model?, feedback? }],
//     documents?: [{ id, title, kind, language?, createdAt, versions: [{ version, content, author, messageId, toolCallId?, createdAt }] }] }
//
// `messages` holds every version of every message (the whole tree, not only
// the path the thread shows), oldest first (by seq), each with every part
// (packages/history/src/parts.ts). A message follows its `parentId` (null for a first
// message); versions of one message share a parent and `chosen` marks the one
// selected among them, so the path the thread shows is the chosen first
// message, its chosen child, and so on. `seq` is where the message's first
// part sits; each part takes one, so a summary's `throughSeq` names a part
// of the file. `files` holds each file the messages' file parts name, once,
// its bytes in base64, before the messages; `documents`, after them, the
// documents the agents wrote and the owner revised, every version with the
// message (of the file) it belongs with. Isomorphic: zod, types and pure
// functions only.
import { z } from "zod";
import { limits } from "@/lib/limits";
import { fileNameSchema, FILE_MEDIA_TYPES, partSchema, ROLES, type FileMediaType, type Part, type Role } from "@threadline/history/parts";
import type { ModelUsage } from "@threadline/history/usage";
import type { ReplyStatus } from "./threads";
import { feedbackSchema, type Feedback } from "./feedback";
import { DOCUMENT_KINDS, documentContentSchema, documentTitleSchema, type DocumentKind } from "./documents";
import { threadOriginFields, type ThreadOrigin } from "@threadline/history/thread-source";

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
  /** A reply: the model that wrote it (`provider:model`), where one was recorded. */
  model?: string;
  /** A reply: what its owner thought of it. */
  feedback?: Feedback;
}

export interface ThreadExport {
  format: typeof THREAD_EXPORT_FORMAT;
  version: typeof THREAD_EXPORT_VERSION;
  exportedAt: string;
  /**
   * title null: the thread has none yet (it shows as "New chat"). Where it
   * came from (packages/history/src/thread-source.ts): an export writes it, an import
   * keeps it; a file without it (written before threads said) is imported as
   * from a file.
   */
  thread: { title: string | null; createdAt: string; updatedAt: string } & Partial<ThreadOrigin>;
  /**
   * What the thread's model calls spent, each call with the message it wrote
   * (null: a title). An import reads past it: the calls were spent where the
   * file came from, not on the server that imports it.
   */
  usage?: ExportedUsage[];
  /** The files the messages carry, each once, before the messages: an import stores them as the importer's. */
  files?: ExportedFile[];
  messages: ExportedMessage[];
  /** The thread's documents, after the messages they belong with. */
  documents?: ExportedDocument[];
}

/** A document of the thread, every version of it, each with the message of the file it belongs with. */
export interface ExportedDocument {
  id: string;
  title: string;
  kind: DocumentKind;
  language?: string;
  createdAt: string;
  versions: { version: number; content: string; author: string; messageId: string; toolCallId?: string; createdAt: string }[];
}

/** One document of a file's `documents`, on its own (its messages are checked against the file's by ThreadFileCheck). */
export const exportedDocumentSchema = z.object(
  {
    id: z.uuid({ message: "must be a UUID" }),
    title: documentTitleSchema,
    kind: z.enum(DOCUMENT_KINDS, { message: 'must be "markdown" or "code"' }),
    language: z.string({ message: "must be a string" }).min(1).max(40, "must be at most 40 characters").optional(),
    createdAt: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" }),
    versions: z
      .array(
        z.object({
          version: z.number().int().min(1, "must be at least 1"),
          content: documentContentSchema,
          author: z.string().min(1).max(64, "must be at most 64 characters"),
          messageId: z.string().min(1).max(256),
          toolCallId: z.string().min(1).max(256).optional(),
          createdAt: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" }),
        }),
        { message: "must be an array of versions" },
      )
      .min(1, "must hold at least one version")
      .max(1_000, "must hold at most 1000 versions")
      .refine((versions) => versions.every((v, index) => v.version === index + 1), "must be numbered 1, 2, 3… in order"),
  },
  { message: "must be an object" },
);

/** A file a message of the file carries, its bytes inlined. */
export interface ExportedFile {
  /** Its id where it was exported from: the file parts name it by this id. */
  id: string;
  name: string;
  mediaType: FileMediaType;
  size: number;
  /** The bytes, in base64. */
  data: string;
}

/** One file of a file's `files`, on its own (its bytes are checked against its type and size by the import). */
export const exportedFileSchema = z.object(
  {
    id: z.uuid({ message: "must be a UUID" }),
    name: fileNameSchema,
    mediaType: z.enum(FILE_MEDIA_TYPES, { message: `must be one of ${FILE_MEDIA_TYPES.join(", ")}` }),
    size: z.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1"),
    data: z.base64({ message: "must be the file's bytes in base64" }),
  },
  { message: "must be an object" },
);

/** One model call's usage in a file: `messageId` names the reply or summary it wrote, as the file names it. */
export type ExportedUsage = Omit<ModelUsage, "id"> & { messageId: string | null; createdAt: string };

const dateTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" });

/**
 * The largest seq a file may use (a part's place in its thread): 2^31 - 1, so
 * a file cannot push a thread's counter to where an int column, a client or a
 * later turn would break.
 */
export const MAX_SEQ = 2 ** 31 - 1;

const title = z
  .string({ message: "must be a string or null" })
  .min(1, "must not be empty")
  .max(limits.maxTitleChars, `must be at most ${limits.maxTitleChars} characters`)
  // eslint-disable-next-line no-control-regex
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "must be a single line without control characters")
  .refine((s) => s.isWellFormed(), "must be valid Unicode text");

const exportedId = z.string({ message: "must be a string" }).min(1, "must not be empty").max(256, "must be at most 256 characters");

/** One message of a file, on its own (the rules between messages are ThreadFileCheck's). */
export const exportedMessageSchema = z.object({
  id: exportedId,
  parentId: exportedId.nullable(),
  role: z.enum(ROLES, { message: 'must be "user", "assistant" or "system"' }),
  parts: z
    .array(partSchema, { message: "must be an array of parts" })
    .min(1, "must hold at least one part")
    .max(limits.maxPartsPerMessage, `must hold at most ${limits.maxPartsPerMessage} parts`),
  status: z.enum(["complete", "stopped", "incomplete", "waiting"], { message: 'must be "complete", "stopped", "incomplete" or "waiting"' }),
  createdAt: dateTime,
  chosen: z.boolean({ message: "must be true or false" }),
  seq: z.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(MAX_SEQ, `must be at most ${MAX_SEQ}`),
  model: z.string({ message: "must be a string" }).min(1, "must not be empty").max(300, "must be at most 300 characters").optional(),
  feedback: feedbackSchema.optional(),
}, { message: "must be an object" });

/** A file's fields other than its messages, each checked as soon as it is read. */
export const exportHeaderFields = {
  format: z.literal(THREAD_EXPORT_FORMAT, { message: `must be "${THREAD_EXPORT_FORMAT}": this is not a Threadline thread export` }),
  version: z.literal(THREAD_EXPORT_VERSION, { message: `must be ${THREAD_EXPORT_VERSION}: the version of the export format this server reads` }),
  exportedAt: dateTime,
  thread: z.object(
    {
      title: title.nullable(),
      createdAt: dateTime,
      updatedAt: dateTime,
      source: threadOriginFields.source.optional(),
      sourceId: threadOriginFields.sourceId.optional(),
      sourceMetadata: threadOriginFields.sourceMetadata.optional(),
    },
    { message: "must be an object" },
  ),
};
export const exportHeaderSchema = z.object(exportHeaderFields, { message: "must be a JSON object" });
export type ExportHeader = z.infer<typeof exportHeaderSchema>;

/** A rule of the file a message breaks: where (below `messages.<index>`), and what the rule is. */
export interface FileIssue {
  path: (string | number)[];
  message: string;
  /** The file is over a limit of lib/limits.ts rather than wrong. */
  limit?: true;
}

/**
 * The file's rules beyond each message's shape, checked one message at a
 * time in file order, so a file of any length is checked without holding
 * it: a tree whose messages come after their parents, in seq order with a
 * seq for each part, one chosen version per parent, parts that fit their
 * message's role, summaries that stand for earlier parts, and the limits
 * of a thread file (lib/limits.ts). The export runs the same check, so
 * every file it writes is one an import reads.
 */
export class ThreadFileCheck {
  private readonly seen = new Set<string>();
  private readonly chosenOf = new Set<string | null>();
  private readonly partSeqs = new Set<number>();
  private nextSeq = 1;
  private readonly files = new Set<string>();
  messages = 0;
  parts = 0;

  /** The files of `files` counted so far. */
  get fileCount(): number {
    return this.files.size;
  }

  private readonly documents = new Set<string>();

  /** The documents of `documents` counted so far. */
  get documentCount(): number {
    return this.documents.size;
  }

  /** The rule the next document breaks (after the messages, each version with a message of the file), or null, and then it counts. */
  addDocument(document: ExportedDocument): FileIssue | null {
    const issue = (path: (string | number)[], text: string): FileIssue => ({ path: ["documents", this.documents.size, ...path], message: text });
    if (this.documents.has(document.id)) return issue(["id"], `"${document.id}" is the id of an earlier document: ids must be unique`);
    const stray = document.versions.findIndex((v) => !this.seen.has(v.messageId));
    if (stray >= 0) return issue(["versions", stray, "messageId"], "must be the id of a message of the file, which come before the documents");
    if (this.documents.size + 1 > limits.maxThreadFileFiles) return { path: ["documents"], message: `must hold at most ${limits.maxThreadFileFiles} documents`, limit: true };
    this.documents.add(document.id);
    return null;
  }

  /** The rule the next file of `files` breaks (its index is the count so far), or null, and then it counts. */
  addFile(file: ExportedFile): FileIssue | null {
    const issue = (path: (string | number)[], text: string): FileIssue => ({ path: ["files", this.files.size, ...path], message: text });
    if (this.messages > 0) return { path: ["files"], message: "must come before the messages" };
    if (this.files.has(file.id)) return issue(["id"], `"${file.id}" is the id of an earlier file: ids must be unique`);
    if (this.files.size + 1 > limits.maxThreadFileFiles) return { path: ["files"], message: `must hold at most ${limits.maxThreadFileFiles} files`, limit: true };
    this.files.add(file.id);
    return null;
  }

  /** The rule the next message breaks (its index in the file is `this.messages`), or null, and then it counts. */
  add(message: ExportedMessage): FileIssue | null {
    const issue = (path: (string | number)[], text: string): FileIssue => ({ path: ["messages", this.messages, ...path], message: text });
    if (this.messages + 1 > limits.maxThreadFileMessages) {
      return { path: ["messages"], message: `must hold at most ${limits.maxThreadFileMessages} messages`, limit: true };
    }
    if (this.seen.has(message.id)) return issue(["id"], `"${message.id}" is the id of an earlier message: ids must be unique`);
    if (message.parentId !== null && !this.seen.has(message.parentId)) {
      return issue(["parentId"], `"${message.parentId}" is not the id of an earlier message of the file`);
    }
    if (message.seq < this.nextSeq) return issue(["seq"], `must be at least ${this.nextSeq}: after the message before it, one seq for each of its parts`);
    if (message.seq + message.parts.length - 1 > MAX_SEQ) return issue(["seq"], `must leave a seq of at most ${MAX_SEQ} for each of its parts`);
    if (message.chosen && this.chosenOf.has(message.parentId)) {
      return issue(["chosen"], "another version of this message (the same parentId) is already chosen");
    }
    const systemEvent = message.parts.findIndex((part) => part.type === "system-event");
    if (message.role === "system" && (message.parts.length !== 1 || systemEvent !== 0)) {
      return issue(["parts"], "a system message must hold exactly one system-event part");
    }
    if (message.role !== "system" && systemEvent >= 0) {
      return issue(["parts", systemEvent], 'a system-event part belongs only in a system message (role "system")');
    }
    if (message.role === "user") {
      if (message.parts[0].type !== "text") return issue(["parts", 0], "a user message starts with its text");
      const other = message.parts.findIndex((part, index) => index > 0 && part.type !== "file");
      if (other >= 0) return issue(["parts", other], "a user message holds its text, then files only");
      if (message.parts.length - 1 > limits.maxFilesPerMessage) return issue(["parts"], `a user message carries at most ${limits.maxFilesPerMessage} files`);
    }
    const file = message.parts.findIndex((part) => part.type === "file");
    if (message.role !== "user" && file >= 0) return issue(["parts", file], "a file part belongs only in a user message");
    const unknown = message.parts.findIndex((part) => part.type === "file" && !this.files.has(part.fileId));
    if (unknown >= 0) return issue(["parts", unknown, "fileId"], "must be the id of a file of the file's files, which come before the messages");
    if (message.feedback && message.role !== "assistant") return issue(["feedback"], "feedback belongs only on an assistant message");
    const summary = message.parts[0];
    if (summary.type === "system-event" && !this.partSeqs.has(summary.throughSeq)) {
      return issue(["parts", 0, "throughSeq"], "must be the seq of a part of an earlier message of the file");
    }
    if (this.parts + message.parts.length > limits.maxThreadFileParts) {
      return { ...issue(["parts"], `the file holds more than ${limits.maxThreadFileParts} parts in all`), limit: true };
    }
    this.messages += 1;
    this.parts += message.parts.length;
    this.seen.add(message.id);
    if (message.chosen) this.chosenOf.add(message.parentId);
    for (let k = 0; k < message.parts.length; k++) this.partSeqs.add(message.seq + k);
    this.nextSeq = message.seq + message.parts.length;
    return null;
  }

  /** The rule the whole file breaks once its last message is read, or null. */
  finish(): FileIssue | null {
    if (this.messages === 0) return { path: ["messages"], message: "must hold at least one message" };
    // With no chosen first message the thread would show nothing (and no list would show the thread).
    if (!this.chosenOf.has(null)) return { path: ["messages"], message: "one first message (parentId null) must be chosen" };
    return null;
  }
}

/**
 * A whole file already in memory, checked by the same rules as a streamed
 * one (lib/threads/import-file.ts reads a streamed one); the first broken
 * rule is its issue.
 */
export const threadExportSchema = z
  .object({
    ...exportHeaderFields,
    messages: z.array(z.unknown(), { message: "must be an array of messages" }),
  }, { message: "must be a JSON object" })
  .transform((file, ctx): ThreadExport => {
    const check = new ThreadFileCheck();
    const messages: ExportedMessage[] = [];
    for (const [index, raw] of file.messages.entries()) {
      const parsed = exportedMessageSchema.safeParse(raw);
      const issue: FileIssue | null = parsed.success
        ? check.add(parsed.data)
        : { path: ["messages", index, ...parsed.error.issues[0].path.map((key) => (typeof key === "symbol" ? String(key) : key))], message: parsed.error.issues[0].message };
      if (issue) {
        ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
        return z.NEVER;
      }
      messages.push(parsed.data!);
    }
    const last = check.finish();
    if (last) {
      ctx.addIssue({ code: "custom", path: last.path, message: last.message });
      return z.NEVER;
    }
    return { ...file, messages };
  });

/**
 * The path a thread shows: its chosen first message, that message's chosen
 * child, and so on, in order. The database keeps the same path as its
 * `active` rows (db/functions/threadline_select_version.sql).
 */
export function chosenPath<M extends Pick<ExportedMessage, "id" | "parentId" | "chosen">>(messages: M[]): M[] {
  const chosenChild = new Map<string | null, M>();
  for (const message of messages) if (message.chosen && !chosenChild.has(message.parentId)) chosenChild.set(message.parentId, message);
  const path: M[] = [];
  for (let next = chosenChild.get(null); next && path.length < messages.length; next = chosenChild.get(next.id)) path.push(next);
  return path;
}

import "server-only";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { once } from "node:events";
// A streaming JSON parser: the file is read as it arrives and each message
// is handed on as soon as it is complete, so memory holds one message, not
// the file. @streamparser/json because it is small, has no dependencies,
// takes bytes from any source (a web ReadableStream as a Request has, or a
// file), reports every token (which bounds nesting while it is read, before
// a value is built), builds objects with "__proto__" keys as own properties
// (as JSON.parse does) and, with `keepStack: false`, drops each emitted
// message from the array it is read into.
import { JSONParser, TokenType } from "@streamparser/json";
import { AppError } from "@threadline/history/errors";
import { limits } from "@/lib/limits";
import { MAX_JSON_DEPTH } from "@threadline/history/json-depth";
import {
  exportedDocumentSchema,
  exportedFileSchema,
  exportHeaderFields,
  exportHeaderSchema,
  exportedMessageSchema,
  ThreadFileCheck,
  type ExportedDocument,
  type ExportedFile,
  type ExportedMessage,
  type ExportHeader,
  type FileIssue,
} from "@/lib/protocol/thread-export";
import { decodeImportedFile, type DecodedFile } from "@/lib/files/imported-file";
import type { ThreadSummary } from "@/lib/protocol/threads";
import type { ThreadRepository } from "./repository";

/**
 * The deepest nesting the parser takes anywhere in a file: a part's input or
 * output starts six levels down (the file, `messages`, a message, `parts`, a
 * part), the part schema refuses what nests deeper than MAX_JSON_DEPTH below
 * that with its own words, and anything deeper still is refused here, before
 * it is built.
 */
const MAX_FILE_DEPTH = MAX_JSON_DEPTH + 16;

export const fileTooLarge = () =>
  new AppError(
    "payload_too_large:body",
    `The file is larger than ${limits.maxThreadFileBytes} bytes, the most a thread file may hold. Nothing was stored.`,
  );

const refused = (issue: FileIssue) =>
  issue.limit
    ? new AppError("payload_too_large:body", `${issue.path.join(".")}: ${issue.message}, the most a thread file may hold. Nothing was stored.`)
    : new AppError("bad_request:validation", `${issue.path.join(".")}: ${issue.message}`);

const pathOf = (keys: PropertyKey[]) => keys.map((key) => (typeof key === "symbol" ? String(key) : key));

/** What a file held besides its messages, and how many messages and parts it held. */
export interface ReadFile {
  header: ExportHeader;
  messages: number;
  parts: number;
}

/**
 * Reads a thread file (lib/protocol/thread-export.ts) as it arrives, checking
 * every rule an import has (each field, each message, the tree and the
 * limits) and handing each message, checked, to `onMessage` in file order
 * (awaited before more is read). The first broken rule is thrown as a 400
 * naming where it is, text that is not UTF-8 or not JSON too. The caller
 * bounds the bytes.
 */
export async function readThreadFile(
  chunks: AsyncIterable<Uint8Array>,
  onMessage: (message: ExportedMessage) => void | Promise<void> = () => {},
  files: FileReading = { maxBytes: 0 },
): Promise<ReadFile> {
  const parser = new JSONParser({
    paths: ["$.format", "$.version", "$.exportedAt", "$.thread", "$.files.*", "$.messages.*", "$.documents.*"],
    keepStack: false,
    // Long strings (a long reply) are gathered in blocks, not byte by byte.
    stringBufferSize: 64 * 1024,
  });
  const header: Record<string, unknown> = {};
  const raw: { list: "files" | "messages" | "documents"; value: unknown }[] = [];
  const check = new ThreadFileCheck();
  let failure: unknown = null;
  let depth = 0;
  let started = false;

  parser.onToken = ({ token }) => {
    if (!started) {
      started = true;
      if (token !== TokenType.LEFT_BRACE) throw new AppError("bad_request:validation", "The file must be a JSON object.");
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (++depth > MAX_FILE_DEPTH) {
        throw new AppError("bad_request:validation", `The file nests objects and arrays more than ${MAX_FILE_DEPTH} deep; a tool's input or output may nest at most ${MAX_JSON_DEPTH} deep.`);
      }
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
  };
  parser.onValue = ({ value, key, parent, stack }) => {
    if (stack.length === 1 && typeof key === "string") {
      const field = exportHeaderFields[key as keyof typeof exportHeaderFields];
      // A field that does not fit is refused at once: a file of another kind is not read to its end.
      const checked = field.safeParse(value);
      if (!checked.success) throw refused({ path: [key, ...pathOf(checked.error.issues[0].path)], message: checked.error.issues[0].message });
      header[key] = checked.data;
    } else {
      const key = stack.at(-1)?.key;
      const list = key === "files" || key === "documents" ? key : "messages";
      if (!Array.isArray(parent)) throw refused({ path: [list], message: `must be an array of ${list}` });
      raw.push({ list, value });
    }
  };
  parser.onError = (error) => {
    failure ??= error;
  };

  const decoder = new TextDecoder("utf-8", { fatal: true });
  const feed = async (text: string) => {
    if (text) parser.write(text);
    if (failure) throw asAppError(failure);
    // What the chunk completed: checked and handed on one by one, before more is read.
    while (raw.length > 0) {
      const next = raw.shift()!;
      if (next.list === "files") {
        await readFileOf(next.value, check, files);
        continue;
      }
      if (next.list === "documents") {
        await readDocumentOf(next.value, check, files.onDocument);
        continue;
      }
      const parsed = exportedMessageSchema.safeParse(next.value);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        throw refused({ path: ["messages", check.messages, ...pathOf(first.path)], message: first.message });
      }
      const issue = check.add(parsed.data);
      if (issue) throw refused(issue);
      await onMessage(parsed.data);
    }
  };
  for await (const chunk of chunks) {
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw new AppError("bad_request:body", "The file is not valid UTF-8 text.");
    }
    await feed(text);
  }
  try {
    await feed(decoder.decode());
  } catch (error) {
    throw error instanceof AppError ? error : new AppError("bad_request:body", "The file is not valid UTF-8 text.");
  }
  if (!started) throw new AppError("bad_request:body", "The file is empty: send an exported thread file.");
  if (!parser.isEnded) parser.end();
  if (failure) throw asAppError(failure);
  // A field the file lacks first (a file of another kind lacks `format`), then what its messages lack.
  const parsedHeader = exportHeaderSchema.safeParse(header);
  if (!parsedHeader.success) {
    const first = parsedHeader.error.issues[0];
    throw refused({ path: pathOf(first.path), message: first.message });
  }
  const last = check.finish();
  if (last) throw refused(last);
  return { header: parsedHeader.data, messages: check.messages, parts: check.parts };
}

/** How the files of a thread file are read: within ATTACHMENT_MAX_MB, each handed on decoded (the write pass stores them). */
export interface FileReading {
  maxBytes: number;
  onFile?: (file: ExportedFile, decoded: DecodedFile) => Promise<void>;
  /** Each document, checked, once the messages it belongs with are read. */
  onDocument?: (document: ExportedDocument) => Promise<void>;
}

/** One document of `documents`: its shape, then its place after the messages its versions belong with. */
async function readDocumentOf(value: unknown, check: ThreadFileCheck, onDocument?: (document: ExportedDocument) => Promise<void>): Promise<void> {
  const parsed = exportedDocumentSchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw refused({ path: ["documents", check.documentCount, ...pathOf(first.path)], message: first.message });
  }
  const issue = check.addDocument(parsed.data);
  if (issue) throw refused(issue);
  await onDocument?.(parsed.data);
}

/** One file of `files`: its shape, its place, then its bytes, as an upload's are checked. */
async function readFileOf(value: unknown, check: ThreadFileCheck, { maxBytes, onFile }: FileReading): Promise<void> {
  const index = check.fileCount;
  const parsed = exportedFileSchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw refused({ path: ["files", index, ...pathOf(first.path)], message: first.message });
  }
  const issue = check.addFile(parsed.data);
  if (issue) throw refused(issue);
  const decoded = await decodeImportedFile(parsed.data, maxBytes);
  if ("refused" in decoded) throw refused({ path: ["files", index, "data"], message: `${parsed.data.name} ${decoded.refused}` });
  await onFile?.(parsed.data, decoded);
}

/** The parser's words for JSON it cannot read, as a 400; our own refusals as they are. */
function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const where = error instanceof Error ? / at chunk position "\d+" \(absolute position "(\d+)"\)/.exec(error.message)?.[1] : undefined;
  return new AppError("bad_request:json", `The file is not valid JSON${where ? ` (at character ${Number(where) + 1})` : ""}.`, { cause: error });
}

/**
 * A new thread of the owner's from a thread file as it arrives, in two
 * passes over it. The first reads it from the request, checks all of it and
 * keeps a copy in a temporary file: a file that breaks a rule or a limit is
 * refused before anything is written, and a slow upload holds no database
 * connection. The second reads the copy again and writes it, in batches,
 * in one transaction (ThreadRepository.importMessages). Either pass holds
 * one message at a time, never the file.
 */
export async function importThreadFile(
  threads: ThreadRepository,
  owner: string,
  body: AsyncIterable<Uint8Array>,
  /** The most one of its files may be (ATTACHMENT_MAX_MB). */
  maxFileBytes: number,
): Promise<ThreadSummary> {
  const folder = await mkdtemp(path.join(tmpdir(), "threadline-import-"));
  const copy = path.join(folder, "thread.json");
  try {
    const { header } = await spoolAndCheck(body, copy, maxFileBytes);
    return await threads.importMessages(owner, header.thread, async (add, addFile, addDocument) => {
      await readThreadFile(createReadStream(copy, { highWaterMark: 64 * 1024 }), add, { maxBytes: maxFileBytes, onFile: addFile, onDocument: addDocument });
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Reads and checks the body, writing each chunk to `copy` as it goes. */
async function spoolAndCheck(body: AsyncIterable<Uint8Array>, copy: string, maxFileBytes: number): Promise<ReadFile> {
  const out = createWriteStream(copy);
  const failed = new Promise<never>((_, reject) => out.once("error", reject));
  failed.catch(() => {});
  async function* teed() {
    for await (const chunk of body) {
      if (!out.write(chunk)) await Promise.race([once(out, "drain"), failed]);
      yield chunk;
    }
  }
  try {
    const read = await readThreadFile(teed(), undefined, { maxBytes: maxFileBytes });
    out.end();
    await Promise.race([once(out, "finish"), failed]);
    return read;
  } finally {
    out.destroy();
  }
}

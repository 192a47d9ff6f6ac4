import "server-only";
import type pg from "pg";
import type { Toolset } from "@/lib/agent/network/tools/types";
import type { DynamicTools } from "@/lib/agent/network/network";
import type { ThreadsChanged } from "@threadline/history/contract";
import type { Feedback } from "@/lib/protocol/feedback";
import type { DocumentHistory } from "@/lib/protocol/documents";
import type { ExportedFile, ExportedMessage, ThreadExport } from "@/lib/protocol/thread-export";
import type { HistoryMessage, StoredMessage, ThreadListItem } from "@/lib/protocol/threads";

// The contract a wing fulfils: a feature (files, documents, reminders,
// feedback, models and usage, MCP, approvals) declared as one value, so that
// createApp builds its services, the agents get its tools with their prompt
// lines, and a thread's life reaches its rows, without createApp, the network
// or the thread repository naming it. The repository runs each wing's hook
// at the step it names, inside the step's own transaction where the step
// writes: a fork, a delete, an import or an adoption is whole or not at all,
// whichever wings took part. A new wing is a folder with one value of this
// shape and a line in lib/wings.ts; with variables of its own, also its
// settings.ts and a line in lib/settings.ts.

/** A pool, or the client of the transaction the hook runs in. */
export type Db = Pick<pg.PoolClient, "query">;

/** A thread of an owner's; the repository checked that it is theirs before a hook sees it. */
export interface ThreadRef {
  owner: string;
  threadId: string;
}

/** What a wing adds to a thread file (lib/protocol/thread-export.ts), and to each message of it. */
export interface ExportSection {
  /** Top-level sections of the file: `usage`, `files`, `documents`. */
  sections?: Partial<Pick<ThreadExport, "usage" | "files" | "documents">>;
  /** A message's own fields the wing keeps (a reply's `feedback`). */
  message?: (message: ExportedMessage) => Partial<ExportedMessage>;
}

/** An import as a wing takes part in it: one transaction, under the importer, with the file's message ids mapped to the new ones. */
export interface ImportContext {
  tx: Db;
  owner: string;
  threadId: string;
  /** The new id of a message of the file (every message is written before the sections that follow them). */
  newMessageId(fileMessageId: string): string;
}

/** What the timeline shows beside the messages. */
export interface TimelineSection {
  feedback?: Readonly<Record<string, Feedback>>;
  documents?: readonly DocumentHistory[];
  /** The memories each reply was given, by its id. */
  memoriesUsed?: Readonly<Record<string, string[]>>;
}

/** A column of the thread list's one query: an SQL expression over the listed thread `t`, and what the list item gets from it. */
export interface ListedColumn {
  /** An expression over `t` (the threads row), made only for the rows the page returns. */
  sql: string;
  item(value: unknown): Partial<ThreadListItem>;
  /** Also on the thread itself (GET /api/threads/:id), not only in the list. */
  onThread?: boolean;
}

/** A wing's part of a thread's life: each hook is optional. */
export interface ThreadLife {
  /** After the fork's messages are copied (same seqs, new ids): copy what belongs with the copied path. */
  fork?(tx: Db, fork: { owner: string; source: string; fork: string }): Promise<void>;
  /** Before the thread's row (and with it, by cascade, its messages) goes: remove what only it held. */
  delete?(tx: Db, thread: ThreadRef): Promise<void>;
  /** The wing's sections of the thread's file, from the file's messages. */
  export?(db: Db, thread: ThreadRef, messages: readonly ExportedMessage[]): Promise<ExportSection>;
  /**
   * Before the file's messages are written, one item of its `files` section at
   * a time, as the file is read: store it, and say its new id (the messages'
   * file parts are rewritten to name it).
   */
  importFile?(context: ImportContext, file: ExportedFile, decoded: { content: Buffer; sha256: Buffer }): Promise<string>;
  /** After every message is written: the wing's rows from the file's sections and messages. */
  importAfter?(context: ImportContext, file: ImportedAfter): Promise<void>;
  /** What the timeline view shows of the wing's rows. */
  timeline?(db: Db, thread: ThreadRef): Promise<TimelineSection>;
  /** The wing's column of the thread list. */
  listed?: ListedColumn;
  /** A page of the thread, with what the wing adds to its messages (the decisions so far on a waiting reply). */
  page?(db: Db, threadId: string, messages: StoredMessage[]): Promise<HistoryMessage[]>;
  /** Moves every row of `from`'s to `to` (an account taking over a guest's threads). */
  adopt?(tx: Db, from: string, to: string): Promise<void>;
}

/** What importAfter hooks read: the file's sections after its messages, and each reply's feedback under its new id. */
export interface ImportedAfter {
  documents: NonNullable<ThreadExport["documents"]>;
  feedback: ReadonlyArray<{ messageId: string; feedback: Feedback }>;
}

/** What createApp hands every wing to build its services from; `Config`: the part of the configuration the wing reads. */
export interface WingParts<Config = unknown> {
  /** The app's configuration, parsed (lib/settings.ts): the wing sees its own slice of it (its settings.ts). */
  config: Config;
  /** The app's one pool. */
  pool(): pg.Pool;
  /** Tells the owner's open pages that a thread of theirs changed. */
  threadsChanged: ThreadsChanged;
  /**
   * What must be one per process, whichever of Next's bundles builds an app (a
   * timer, worker threads): built once by `key`; `close` ends it with the app.
   */
  perProcess<T>(key: string, build: () => T, close?: (value: T) => void | Promise<void>): T;
  /** Runs `close` when the app closes (a test's app; the process's never does). */
  onClose(close: () => void | Promise<void>): void;
}

/**
 * A wing: its name, the tables it owns (no module outside it names them), the
 * services its routes and the other wings call (members of the app), its
 * agent tools with their prompt lines, and its part of a thread's life.
 * `App`: what the wing takes from the app it is part of (its own services, a
 * rate limit), which createApp must have: the app is handed in, never
 * imported. Services are built lazily: a member reads the app when called.
 * `Config`: what the wing reads of the configuration, its own slice.
 */
export interface Wing<App = unknown, Services extends object = object, Config = unknown> {
  name: string;
  tables: readonly string[];
  services?(parts: WingParts<Config>, app: App): Services;
  /** The wing's agent tools; undefined where the configuration turns them off. */
  toolset?(app: App): Toolset | undefined;
  /** Tools listed anew before each turn (the operator's MCP servers'), if the wing has any configured. */
  listedTools?(app: App): Omit<DynamicTools, "agent"> | undefined;
  thread?: ThreadLife;
}

/** A value built on first use, once. */
export const once = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
};

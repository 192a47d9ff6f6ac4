import "server-only";
import { randomUUID } from "node:crypto";
import { toColumns } from "@threadline/history/codec";
import { AppError } from "@threadline/history/errors";
import type { Part } from "@threadline/history/parts";
import type { ExportedMessage } from "@/lib/protocol/thread-export";
import type { Feedback } from "@/lib/protocol/feedback";

/** threadline_import_parts's arrays: one element per part row. */
export interface ImportRows {
  seqs: number[];
  messageIds: string[];
  partIndexes: number[];
  kinds: string[];
  agents: (string | null)[];
  contents: string[];
  escaped: boolean[];
  data: string[];
  statuses: string[];
  createdAts: string[];
  parents: (string | null)[];
  chosen: boolean[];
  active: boolean[];
  models: (string | null)[];
}

const emptyRows = (): ImportRows => ({
  seqs: [], messageIds: [], partIndexes: [], kinds: [], agents: [], contents: [], escaped: [], data: [],
  statuses: [], createdAts: [], parents: [], chosen: [], active: [], models: [],
});

/** A batch is written when it holds this many rows or this much text, whichever comes first. */
const BATCH_ROWS = 1_000;
const BATCH_CHARS = 4 * 1024 * 1024;

/**
 * A part as an import stores it. A summary from a file is anyone's words:
 * marked imported, so the model reads it as quoted data, never as a system
 * message (packages/history/src/summary-for-model.ts). A file part names
 * the file as the importer holds it. A call that waited for
 * an approval waits no more: the approval was the exporting server's, and
 * nobody here can decide it.
 */
function asImported(part: Part, fileIds: ReadonlyMap<string, string>): Part {
  if (part.type === "system-event") return { ...part, imported: true };
  // The file as the importer holds it now (the file's check made sure it came with the file).
  if (part.type === "file") {
    const fileId = fileIds.get(part.fileId);
    // Never the id as the file gives it: that could name someone else's file.
    if (fileId === undefined) throw new AppError("bad_request:validation", `A file part names ${part.fileId}, which is not among the file's files.`);
    return { ...part, fileId };
  }
  if (part.type === "tool-call" && part.approval) {
    const { approval: _, ...call } = part;
    return call;
  }
  return part;
}

/** A reply that waited for an approval is imported as stopped there. */
const importedStatus = (status: ExportedMessage["status"]) => (status === "waiting" ? "stopped" : status);

/**
 * Checked messages of a file (ThreadFileCheck, in file order) as rows, in
 * batches: every message under a new id, its parent under its parent's new
 * id, each part at its message's seq plus its place, and `active` on the path
 * the chosen versions make. A message is on that path when it is chosen and
 * its parent is (or it has none): a checked file has one chosen version per
 * parent and every parent before its children, so the path is known message
 * by message, as chosenPath finds it for a whole file.
 */
export class ImportBatches {
  private readonly placed = new Map<string, { id: string; active: boolean }>();
  private rows = emptyRows();
  /** The replies' feedback, under their new ids: written once every message is. */
  readonly feedback: { messageId: string; feedback: Feedback }[] = [];
  private chars = 0;
  /** The file's file ids → the importer's files they were stored as (added before the messages that name them). */
  readonly fileIds = new Map<string, string>();

  constructor(private readonly newId: () => string = randomUUID) {}

  /** Adds the message's rows to the batch; true when the batch is full enough to write. */
  add(message: ExportedMessage): boolean {
    const parent = message.parentId === null ? null : this.placed.get(message.parentId)!;
    const id = this.newId();
    const active = message.chosen && (parent === null || parent.active);
    this.placed.set(message.id, { id, active });
    const r = this.rows;
    message.parts.forEach((part, index) => {
      const columns = toColumns(message.role, asImported(part, this.fileIds));
      r.seqs.push(message.seq + index);
      r.messageIds.push(id);
      r.partIndexes.push(index);
      r.kinds.push(columns.kind);
      r.agents.push(columns.agentName);
      r.contents.push(columns.content);
      r.escaped.push(columns.escaped);
      r.data.push(JSON.stringify(columns.data));
      r.statuses.push(importedStatus(message.status));
      r.createdAts.push(message.createdAt);
      r.parents.push(parent?.id ?? null);
      r.chosen.push(message.chosen);
      r.active.push(active);
      r.models.push(message.model ?? null);
      this.chars += columns.content.length;
    });
    if (message.feedback) this.feedback.push({ messageId: id, feedback: message.feedback });
    return r.seqs.length >= BATCH_ROWS || this.chars >= BATCH_CHARS;
  }

  /** A message's id in the new thread, by its id in the file (the file's check made sure it has one). */
  newIdOf(fileId: string): string {
    const placed = this.placed.get(fileId);
    if (!placed) throw new AppError("bad_request:validation", `"${fileId}" is not the id of a message of the file.`);
    return placed.id;
  }

  /** The rows added since the last take, or null when there are none. */
  take(): ImportRows | null {
    if (this.rows.seqs.length === 0) return null;
    const rows = this.rows;
    this.rows = emptyRows();
    this.chars = 0;
    return rows;
  }
}

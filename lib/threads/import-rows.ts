import "server-only";
import { randomUUID } from "node:crypto";
import { toColumns } from "@/lib/protocol/parts-codec";
import { chosenPath, type ThreadExport } from "@/lib/protocol/thread-export";

/** threadline_import_thread's arrays: one element per part row. */
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
}

/**
 * A checked file (threadExportSchema) as rows: every message under a new id,
 * its parent under its parent's new id, each part at its message's seq plus
 * its place, and the active path the chosen versions make.
 */
export function importRows(file: ThreadExport, newId: () => string = randomUUID): ImportRows {
  const ids = new Map(file.messages.map((message) => [message.id, newId()]));
  const active = new Set(chosenPath(file.messages).map((message) => message.id));
  const rows: ImportRows = {
    seqs: [], messageIds: [], partIndexes: [], kinds: [], agents: [], contents: [], escaped: [], data: [],
    statuses: [], createdAts: [], parents: [], chosen: [], active: [],
  };
  for (const message of file.messages) {
    message.parts.forEach((part, index) => {
      const columns = toColumns(message.role, part);
      rows.seqs.push(message.seq + index);
      rows.messageIds.push(ids.get(message.id)!);
      rows.partIndexes.push(index);
      rows.kinds.push(columns.kind);
      rows.agents.push(columns.agentName);
      rows.contents.push(columns.content);
      rows.escaped.push(columns.escaped);
      rows.data.push(JSON.stringify(columns.data));
      rows.statuses.push(message.status);
      rows.createdAts.push(message.createdAt);
      rows.parents.push(message.parentId === null ? null : ids.get(message.parentId)!);
      rows.chosen.push(message.chosen);
      rows.active.push(active.has(message.id));
    });
  }
  return rows;
}

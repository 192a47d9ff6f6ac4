// The messages table's rows as a Postgres read returns them, and how a read's
// rows become messages. The conversion of each part is the column codec's
// (codec.ts); this is only what pg hands over around it:
// seq as a bigint string, created_at as a Date, one row per part.
import { fromColumns, roleOfKind, type StoredPart } from "./codec";
import type { ReplyStatus, StoredMessage } from "./messages";
import type { SystemEventPart } from "./parts";

/** A message part's columns, as every read selects them (messages aliased m). */
export const PART_COLUMNS =
  "m.seq, m.message_id, m.parent_message_id, m.kind, m.agent_name, m.content, m.content_escaped, m.status, m.data, m.created_at, m.model";

export type Nullable<T> = { [K in keyof T]: T[K] | null };

export interface PartRow extends StoredPart {
  /** bigint: pg hands it over as a string. */
  seq: string | number;
  message_id: string;
  parent_message_id: string | null;
  status: ReplyStatus;
  created_at: Date;
  model: string | null;
}

/** Rows in seq order → messages: consecutive rows of one message_id are its parts. */
export function rowsToMessages(rows: PartRow[]): StoredMessage[] {
  const messages: StoredMessage[] = [];
  for (const row of rows) {
    const last = messages.at(-1);
    const part = fromColumns(row);
    if (last?.id === row.message_id) {
      last.parts.push(part);
      continue;
    }
    messages.push({
      id: row.message_id,
      seq: Number(row.seq),
      parentId: row.parent_message_id,
      role: roleOfKind(row.kind),
      parts: [part],
      createdAt: row.created_at.toISOString(),
      status: row.status,
      ...(row.model ? { model: row.model } : {}),
      ...(row.kind === "assistant" && typeof row.data?.reminder === "string" ? { reminder: true as const } : {}),
    });
  }
  return messages;
}

/** The summary among a row's part columns (a LEFT JOIN leaves them null when there is none). */
export function summaryFrom(row: Nullable<PartRow>): (StoredMessage & { role: "system"; parts: [SystemEventPart] }) | undefined {
  if (row.kind !== "system_event") return undefined;
  return rowsToMessages([row as PartRow])[0] as StoredMessage & { role: "system"; parts: [SystemEventPart] };
}

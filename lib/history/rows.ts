// The messages table's rows as a Postgres read returns them, and how a read's
// rows become messages. The conversion of each part is the parts codec's
// (lib/protocol/parts-codec.ts); this is only what pg hands over around it:
// seq as a bigint string, created_at as a Date, one row per part.
import { fromColumns, roleOfKind, type StoredPart } from "@/lib/protocol/parts-codec";
import type { ReplyStatus, StoredMessage } from "@/lib/protocol/threads";

export interface PartRow extends StoredPart {
  /** bigint: pg hands it over as a string. */
  seq: string | number;
  message_id: string;
  status: ReplyStatus;
  created_at: Date;
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
      role: roleOfKind(row.kind),
      parts: [part],
      createdAt: row.created_at.toISOString(),
      status: row.status,
    });
  }
  return messages;
}

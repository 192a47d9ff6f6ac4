import "server-only";
import type pg from "pg";
import { AppError, notFoundThread, threadBusy } from "./errors";
import { filesColumn, fromColumns, toColumns } from "./codec";
import type { FilePart } from "./parts";
import { PART_COLUMNS, summaryFrom, type Nullable, type PartRow } from "./rows";
import type { OpenedTurn, TurnStore } from "./contract";

type OpenArgs = Parameters<TurnStore["openTurn"]>[0] & { replaces: string };

interface OpenedVersionRow {
  refused: "not_found" | "busy" | "same_id" | "changed" | "not_reply" | "reminder" | null;
  thread_id: string;
  claimed: boolean;
  running: boolean;
  message_count: number;
  user_seq: string | null;
  user_content: string | null;
  user_escaped: boolean | null;
  user_parent: string | null;
  user_files: FilePart[] | null;
}

/** Why a regenerate or an edit was refused, in words the person who asked for it understands. */
const REFUSALS: Record<NonNullable<OpenedVersionRow["refused"]>, () => AppError> = {
  not_found: () => new AppError("not_found:message", "That message is not in this thread."),
  busy: threadBusy,
  same_id: () => new AppError("bad_request:message_id", "An edited message needs an id of its own."),
  changed: () =>
    new AppError("conflict:version_changed", "That message is no longer the one shown in this thread: it was regenerated or edited meanwhile. Reload to see its versions."),
  not_reply: () => new AppError("bad_request:replaces", "That reply does not answer this message."),
  reminder: () => new AppError("bad_request:replaces", "A posted reminder answers no message, so it cannot be regenerated. Send a new message instead."),
};

/**
 * Opens a regenerate or an edit in one round trip (the database function
 * threadline_open_version, db/functions/threadline_open_version.sql, keeps
 * the rules): the
 * claim, and for an edit the cut path and the new message. The latest summary
 * the turn reads comes along.
 */
export async function openVersionTurn(
  pool: pg.Pool,
  { owner, threadId, messageId, turnId, message, leaseMs, replaces }: OpenArgs,
  /** The runner key the turn records (see lib/db/runner-lock.ts); null: its lease alone tells whether it runs. */
  runner: string | null,
): Promise<OpenedTurn> {
  const { content, escaped } = toColumns("user", { type: "text", text: message.content });
  const { rows } = await pool.query<OpenedVersionRow & Nullable<PartRow>>(
    `SELECT o.refused, o.thread_id, o.claimed, o.running, o.message_count, o.user_seq, o.user_content, o.user_escaped, o.user_parent, o.user_files, ${PART_COLUMNS}
       FROM threadline_open_version($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) o
       LEFT JOIN messages m ON m.thread_id = $1 AND m.seq = o.summary_seq`,
    [threadId, owner, messageId, turnId, content, escaped, leaseMs, replaces, runner, filesColumn(message)],
  );
  if (rows.length === 0) throw notFoundThread();
  const [row] = rows;
  if (row.refused) throw REFUSALS[row.refused]();
  const claim = row.claimed ? ({ claimed: true } as const) : { claimed: false as const, threadId: row.thread_id, running: row.running };
  const stored =
    row.user_content === null
      ? undefined
      : fromColumns({ kind: "user", agent_name: null, content: row.user_content, content_escaped: row.user_escaped ?? false, data: {} });
  return {
    threadId,
    created: false,
    messages: row.message_count,
    summary: summaryFrom(row),
    claim,
    userSeq: row.user_seq === null ? undefined : Number(row.user_seq),
    ...(row.user_seq === null ? {} : { userParentId: row.user_parent }),
    ...(stored?.type === "text" ? { message: { id: messageId, role: "user" as const, content: stored.text, ...storedFiles(row.user_files) } } : {}),
  };
}

/** The files of a regenerated message, as it was stored with them. */
const storedFiles = (files: FilePart[] | null): { files?: FilePart[] } =>
  files && files.length > 0 ? { files: files.map((file) => ({ ...file, type: "file" as const })) } : {};

import "server-only";
import { causeChain } from "@threadline/history/errors";

// Whether the database refused a write for what it holds (a value it cannot
// take, a rule it breaks, a size past a limit) rather than because it could
// not be reached. Such a write fails the same way every time: it is reported
// at once, never retried as an outage (see unavailable.ts for those).

/** SQLSTATE classes of a refusal, each with what it means in plain words. */
const REFUSAL_CLASSES: Record<string, string> = {
  "22": "it holds a value the database cannot store",
  "23": "it breaks a rule of the database",
  "54": "it is larger than the database can take",
};

/**
 * A plain phrase saying why the database refused the write, naming the
 * condition (e.g. "it breaks a rule of the database (check_violation on
 * messages, constraint messages_kind_check)"), or undefined when the error is
 * not such a refusal.
 */
export function databaseRefusal(error: unknown): string | undefined {
  for (const current of causeChain(error)) {
    const { code, table, constraint } = current as { code?: unknown; table?: unknown; constraint?: unknown };
    if (typeof code !== "string" || code.length !== 5) continue;
    const meaning = REFUSAL_CLASSES[code.slice(0, 2)];
    if (!meaning) continue;
    const on = typeof table === "string" ? ` on ${table}` : "";
    const rule = typeof constraint === "string" ? `, constraint ${constraint}` : "";
    return `${meaning} (${CONDITION_NAMES[code] ?? `SQLSTATE ${code}`}${on}${rule})`;
  }
  return undefined;
}

/** Postgres's names of the conditions a reply's write can meet. */
const CONDITION_NAMES: Record<string, string> = {
  "22001": "string_data_right_truncation",
  "22003": "numeric_value_out_of_range",
  "22021": "character_not_in_repertoire",
  "22P02": "invalid_text_representation",
  "22P05": "untranslatable_character",
  "23502": "not_null_violation",
  "23503": "foreign_key_violation",
  "23505": "unique_violation",
  "23514": "check_violation",
  "54000": "program_limit_exceeded",
  "54001": "statement_too_complex",
};

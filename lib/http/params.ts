import { AppError } from "@threadline/history/errors";
import { isUuid } from "@threadline/history/uuid";

/** A thread id from the URL: a malformed one is a 400, never a database error. */
export function threadIdParam(value: string): string {
  if (!isUuid(value)) throw new AppError("bad_request:thread_id", "The thread id must be a UUID.");
  return value.toLowerCase();
}

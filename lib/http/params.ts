import { AppError } from "@threadline/history/errors";
import { isUuid } from "@threadline/history/uuid";
import { messageId } from "@/lib/protocol/chat";

/** A thread id from the URL: a malformed one is a 400, never a database error. */
export function threadIdParam(value: string): string {
  if (!isUuid(value)) throw new AppError("bad_request:thread_id", "The thread id must be a UUID.");
  return value.toLowerCase();
}

/** A message id from the URL, as a client makes them: anything else is a 400. */
export function messageIdParam(value: string): string {
  if (!messageId.safeParse(value).success) throw new AppError("bad_request:message_id", "The message id must be 1-128 letters, digits, '-' or '_'.");
  return value;
}

/** A person's id from the URL (a UUID): anything else is a 400. */
export function personIdParam(value: string): string {
  if (!isUuid(value)) throw new AppError("bad_request:person_id", "The person id must be a UUID.");
  return value.toLowerCase();
}

/** A budget group's id from the URL (a UUID): anything else is a 400. */
export function groupIdParam(value: string): string {
  if (!isUuid(value)) throw new AppError("bad_request:group_id", "The group id must be a UUID.");
  return value.toLowerCase();
}

/** A memory's id from the URL (a UUID): anything else is a 400. */
export function memoryIdParam(value: string): string {
  if (!isUuid(value)) throw new AppError("bad_request:memory_id", "The memory id must be a UUID.");
  return value.toLowerCase();
}

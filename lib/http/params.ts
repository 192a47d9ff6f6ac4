import { z } from "zod";
import { AppError } from "@/lib/errors";

export const uuid = z.uuid({ message: "must be a UUID" });

/** A thread id from the URL: a malformed one is a 400, never a database error. */
export function threadIdParam(value: string): string {
  const parsed = uuid.safeParse(value);
  if (!parsed.success) throw new AppError("bad_request:thread_id", "The thread id must be a UUID.");
  return parsed.data.toLowerCase();
}

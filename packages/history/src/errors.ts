// One error type for the whole app. A code reads "<kind>:<subject>", e.g.
// "not_found:thread"; the kind decides the HTTP status. The client parses the
// JSON body back into the same type (see fromErrorBody).

export type ErrorKind =
  | "bad_request"
  /** A value the request names that is well formed but not one the server offers (a model not on its list). */
  | "invalid"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  /** What was there is no more, for good (a share link revoked or expired): 410. */
  | "gone"
  | "payload_too_large"
  | "rate_limited"
  /** The person's budget has no room for what was asked (lib/budgets/): 429, with Retry-After to the period's end. */
  | "budget"
  | "unsupported_media_type"
  | "unavailable"
  | "internal";

export type ErrorCode = `${ErrorKind}:${string}`;

const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  rate_limited: 429,
  budget: 429,
  unsupported_media_type: 415,
  unavailable: 503,
  internal: 500,
};

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

export class AppError extends Error {
  readonly code: ErrorCode;
  /** For a 429 or 503: when the client may try again (the Retry-After header). */
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options);
    this.name = "AppError";
    this.code = code;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  get kind(): ErrorKind {
    return this.code.split(":")[0] as ErrorKind;
  }

  get status(): number {
    return STATUS[this.kind] ?? 500;
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

export function isErrorBody(value: unknown): value is ErrorBody {
  const error = (value as ErrorBody | null)?.error;
  return typeof error?.code === "string" && typeof error?.message === "string";
}

export function fromErrorBody(body: unknown, fallbackStatus = 500): AppError {
  if (isErrorBody(body)) return new AppError(body.error.code, body.error.message);
  const kind = (Object.keys(STATUS) as ErrorKind[]).find((k) => STATUS[k] === fallbackStatus) ?? "internal";
  return new AppError(`${kind}:unknown`, "Something went wrong. Please try again.");
}

/** An error and the errors it was caused by, outermost first (at most `depth` of them). */
export function* causeChain(error: unknown, depth = 5): Generator<Error> {
  for (let current = error, seen = 0; current instanceof Error && seen < depth; current = current.cause, seen++) yield current;
}

export const notFoundThread = () => new AppError("not_found:thread", "Thread not found.");
/** Another message's reply is being written in the thread: one turn per thread at a time. */
export const threadBusy = () => new AppError("conflict:turn_in_progress", "A reply is still being written in this thread. Wait for it or press Stop.");
/** A user's message id already stored in the thread: stored once, answered once. */
export const duplicateMessage = () => new AppError("conflict:duplicate_message", "This message was already sent; its reply is in the thread.");

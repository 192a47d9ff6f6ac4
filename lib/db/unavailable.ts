import "server-only";
import { causeChain } from "@threadline/history/errors";

// Whether an error means the database cannot be reached right now (down,
// restarting, unreachable, out of connections) rather than that a query was
// wrong: the first is worth a 503 and a retry, the second is a bug.

/** Socket errors Node reports when a connection cannot be made or was cut. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);

/**
 * SQLSTATEs of the same: class 08 (connection exception), 57P01-57P03 (the
 * server is shutting down, crashed, or not yet accepting connections), 53300
 * (too many connections).
 */
const isUnavailableState = (code: string) => code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code);

/** What pg and pg-pool say, without a code, when a connection dies or cannot be had in time. */
const MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/i, /is not queryable/, /^Connection ended/];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const current of causeChain(error)) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (SOCKET_CODES.has(code) || isUnavailableState(code))) return true;
    if (MESSAGES.some((pattern) => pattern.test(current.message))) return true;
    // Node's net errors for several addresses (localhost: ::1 and 127.0.0.1) come as an AggregateError.
    if (current instanceof AggregateError && current.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}

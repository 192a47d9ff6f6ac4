import "server-only";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { AppError } from "@threadline/history/errors";

/** How long a client is asked to wait before trying again while the database is away (a restart takes seconds). */
const DATABASE_RETRY_AFTER_SECONDS = 5;

type Handler<Ctx> = (request: Request, context: Ctx) => Promise<Response>;

export function jsonResponse(body: unknown, init?: ResponseInit): Response {
  return Response.json(body, { ...init, headers: { "cache-control": "no-store", ...init?.headers } });
}

export function errorResponse(error: unknown): Response {
  if (error instanceof AppError && error.kind !== "internal") {
    const headers = error.retryAfterSeconds === undefined ? undefined : { "retry-after": String(error.retryAfterSeconds) };
    return jsonResponse(error.toBody(), { status: error.status, headers });
  }
  if (isDatabaseUnavailable(error)) {
    console.error("[api] database unavailable:", (error as Error).message);
    return errorResponse(
      new AppError("unavailable:database", "The database is unavailable right now, so nothing was saved. Please try again in a few seconds.", {
        retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
      }),
    );
  }
  // Logged in full here; the client gets a generic message and never a stack.
  console.error("[api] unexpected error:", error);
  const generic = new AppError("internal:server", "Something went wrong on the server. Please try again.");
  return jsonResponse(generic.toBody(), { status: 500 });
}

/** Wraps a route handler so that every failure becomes the one JSON error shape. */
export function route<Ctx = unknown>(handler: Handler<Ctx>): Handler<Ctx> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

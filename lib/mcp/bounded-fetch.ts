import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

// The MCP SDK reads a response whole before our code sees a byte of it
// (response.json(), or an SSE event parsed in full), so a cap applied to the
// result afterwards comes too late: a server's 48 MB answer was read and held.
// The transports are given this fetch instead, which counts each response's
// bytes as they arrive and ends the read (cancelling the body, which closes
// the connection) once they pass the limit for what was asked.
// - A POST's answer (JSON or an SSE stream, Streamable HTTP's reply to one
//   request) is counted whole, against the limit of the request's method.
// - A GET's stream (Streamable HTTP's stream of server messages, the older SSE
//   transport's session stream) lives for hours: each event is counted on its
//   own, against the largest limit.

/** The call a request is sent for: the fetch fails it at once when its answer is cut (an SSE answer's error would otherwise leave it waiting). */
export interface CallScope {
  /** Ends the call with `error`. */
  abort(error: Error): void;
}

export const callScope = new AsyncLocalStorage<CallScope>();

/** A response passed its limit, and its reading stopped there. */
export class ResponseTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly what: "answer" | "message",
  ) {
    super(`its ${what} passed ${limit.toLocaleString("en-US")} bytes, and reading stopped there`);
    this.name = "ResponseTooLarge";
  }
}

export interface ByteLimits {
  /** The most bytes a POST's answer may be, by the JSON-RPC method it carried. */
  forMethod(method: string | undefined): number;
  /** The most bytes one event of a GET's stream may be. */
  perEvent: number;
  /** A GET stream's event passed the limit: a result that was in it is lost, and the caller decides what becomes of the connection. */
  onStreamOverflow?(error: ResponseTooLarge): void;
}

const LF = 0x0a;
const CR = 0x0d;

export function boundedFetch(limits: ByteLimits, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    // Captured now: the body's reads run later, outside the call's async context.
    const scope = callScope.getStore();
    const response = await base(url, init);
    if (!response.body) return response;
    const post = (init?.method ?? "GET").toUpperCase() === "POST";
    const limit = post ? limits.forMethod(methodOf(init?.body)) : limits.perEvent;
    const counter = post ? wholeCounter(limit) : eventCounter(limit);
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (counter(chunk)) {
            controller.enqueue(chunk);
            return;
          }
          const error = new ResponseTooLarge(limit, post ? "answer" : "message");
          // Erroring the stream cancels the body: the connection closes, and the server stops sending.
          controller.error(error);
          if (post) scope?.abort(error);
          else limits.onStreamOverflow?.(error);
        },
      }),
    );
    const bounded = new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    // The SDK names an unfollowed redirect's target from the response's URL.
    Object.defineProperty(bounded, "url", { value: response.url });
    return bounded;
  };
}

/** Counts a body whole: false once it passes `limit`. */
function wholeCounter(limit: number): (chunk: Uint8Array) => boolean {
  let total = 0;
  return (chunk) => (total += chunk.byteLength) <= limit;
}

/** Counts each SSE event (its bytes up to the blank line that ends it): false once one passes `limit`. */
function eventCounter(limit: number): (chunk: Uint8Array) => boolean {
  let event = 0;
  let line = 0;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === LF) {
        if (line === 0) event = 0;
        line = 0;
      } else if (byte !== CR) {
        line++;
        event++;
      }
    }
    return event <= limit;
  };
}

/** The JSON-RPC method a request's body carries, without parsing a body that may be large (a tool's input). */
function methodOf(body: unknown): string | undefined {
  if (typeof body !== "string") return undefined;
  return /"method"\s*:\s*"([^"]{1,100})"/.exec(body.slice(0, 4_096))?.[1];
}

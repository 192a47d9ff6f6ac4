import "server-only";
import { Agent, request } from "undici";

/**
 * The Inngest SDK's fetch: undici's `request` on keep-alive connections. A
 * durable turn makes dozens of small requests to Inngest (a realtime publish
 * per batch of chunks, a checkpoint per step), and the global fetch costs
 * about twice the CPU per request (fetch's machinery and web streams, plus
 * Next.js's patched fetch with its tracing span around it), while the SDK
 * only ever sends a string body and reads a small answer.
 *
 * Anything else (a streamed body, a Request object, a redirect to follow)
 * goes to the global fetch as before. Failures look like fetch's (TypeError
 * "fetch failed" with the cause), as the SDK expects. Like fetch, it never
 * sends a request again by itself: a publish, a checkpoint or an event is not
 * safe to repeat, and the SDK decides its own retries.
 */
export async function inngestFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  if (input instanceof Request || (init?.body != null && typeof init.body !== "string")) return globalThis.fetch(input, init);
  const url = typeof input === "string" ? new URL(input) : input;
  if (url.protocol !== "http:" && url.protocol !== "https:") return globalThis.fetch(input, init);
  let answer: Awaited<ReturnType<typeof request>>;
  let bytes: ArrayBuffer;
  try {
    answer = await request(url, {
      method: (init?.method ?? "GET") as "GET",
      headers: headersOf(init?.headers),
      body: init?.body as string | undefined,
      signal: init?.signal ?? undefined,
      dispatcher,
    });
    bytes = await answer.body.arrayBuffer();
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new TypeError("fetch failed", { cause: error });
  }
  const { statusCode: status, headers } = answer;
  // Redirects are fetch's to follow (with its rules for the method and body); the SDK's endpoints do not send them.
  if (status >= 300 && status < 400 && headers.location && init?.redirect !== "manual") return globalThis.fetch(input, init);
  return new Response(NULL_BODY_STATUS.has(status) ? null : bytes, { status, headers: headerPairs(headers) });
}

// Keeps idle connections open for the next request, as the global fetch does; its own, so Next.js's fetch patch is not in the way.
const dispatcher = new Agent();

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

function headersOf(given: HeadersInit | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given !== undefined) new Headers(given).forEach((value, name) => (headers[name] = value));
  return headers;
}

function headerPairs(headers: Record<string, string | string[] | undefined>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const one of value) pairs.push([name, one]);
    else if (value !== undefined) pairs.push([name, value]);
  }
  return pairs;
}

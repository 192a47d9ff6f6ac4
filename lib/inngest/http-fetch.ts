import "server-only";
import http from "node:http";
import https from "node:https";

/**
 * The Inngest SDK's fetch: node:http on keep-alive connections. A durable
 * turn makes dozens of small requests to Inngest (a realtime publish per
 * batch of chunks, a checkpoint per step), and the global fetch costs about
 * twice the CPU of node:http per request (undici's fetch machinery and web
 * streams, plus Next.js's patched fetch with its tracing span around it),
 * while the SDK only ever sends a string body and reads a small answer.
 *
 * Anything else (a streamed body, an abort signal, a Request object) goes to
 * the global fetch as before. Failures look like fetch's (TypeError "fetch
 * failed" with the cause), as the SDK expects.
 */
export function httpFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  if (input instanceof Request || (init?.body != null && typeof init.body !== "string") || init?.signal || init?.redirect === "error") {
    return globalThis.fetch(input, init);
  }
  const url = typeof input === "string" ? new URL(input) : input;
  if (url.protocol !== "http:" && url.protocol !== "https:") return globalThis.fetch(input, init);
  return send(url, init, true);
}

/** A client's idle connections stay open for the next request; Node closes them before the server's announced keep-alive timeout. */
const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/** As long as undici lets a request wait for its answer (its headers and body timeouts). */
const IDLE_TIMEOUT_MS = 300_000;

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

function send(url: URL, init: RequestInit | undefined, mayRetry: boolean): Promise<Response> {
  const body = init?.body as string | undefined;
  const headers = headersOf(init?.headers);
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  const transport = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const request = transport.request(url, { method: init?.method ?? "GET", headers, agent: agents[url.protocol as "http:" | "https:"] }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", (error) => reject(new TypeError("fetch failed", { cause: error })));
      response.on("end", () => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        // Redirects are fetch's to follow; the SDK's endpoints do not send them.
        if (status >= 300 && status < 400 && location) return resolve(globalThis.fetch(url, init));
        const pairs: [string, string][] = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2) pairs.push([response.rawHeaders[i], response.rawHeaders[i + 1]]);
        resolve(new Response(NULL_BODY_STATUS.has(status) ? null : Buffer.concat(chunks), { status, statusText: response.statusMessage, headers: pairs }));
      });
    });
    request.setTimeout(IDLE_TIMEOUT_MS, () => request.destroy(new Error(`no answer from ${url.origin} in ${IDLE_TIMEOUT_MS / 1000} s`)));
    request.on("error", (error: NodeJS.ErrnoException) => {
      // The server closed an idle connection as this request went out on it: it never saw the request, so send it again once on a new one.
      if (mayRetry && request.reusedSocket && error.code === "ECONNRESET") return resolve(send(url, init, false));
      reject(new TypeError("fetch failed", { cause: error }));
    });
    request.end(body);
  });
}

function headersOf(given: HeadersInit | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given === undefined) return headers;
  if (given instanceof Headers || Array.isArray(given)) {
    new Headers(given).forEach((value, name) => (headers[name] = value));
    return headers;
  }
  for (const [name, value] of Object.entries(given)) if (value !== undefined) headers[name.toLowerCase()] = String(value);
  return headers;
}

// Where a request comes from, as far as a browser tells: the rules that keep
// another site from acting with a visitor's cookie. Browsers send Sec-Fetch-*
// (all current ones) and Origin (on unsafe requests); a client that sends
// neither is not a browser and carries no ambient cookie to abuse.
import { AppError } from "@threadline/history/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const isSafeMethod = (method: string) => SAFE_METHODS.has(method.toUpperCase());

/** The host this request was addressed to, as the browser saw it (a TLS proxy passes it on). */
export function ownHost(headers: Headers, url: URL | string): string {
  return headers.get("x-forwarded-host")?.split(",")[0].trim() || headers.get("host") || new URL(url).host;
}

/**
 * True when a browser sent the request from this app's own origin, or when no
 * browser sent it. Another port of the same host is another origin ("same-site"
 * to the browser): refused, like any other site.
 */
export function isSameOrigin(headers: Headers, url: URL | string): boolean {
  const site = headers.get("sec-fetch-site");
  if (site) return site === "same-origin" || site === "none";
  const origin = headers.get("origin");
  if (origin === null) return true;
  try {
    return new URL(origin).host === ownHost(headers, url);
  } catch {
    return false; // "null" (a sandboxed frame, a file) or garbage
  }
}

/**
 * Whether a request without a valid identity may be given a new one. Only a
 * safe request from this origin, or a top-level page navigation: a top-level
 * GET carries the SameSite=Lax cookie when the browser has one, so a new
 * identity there replaces nothing. A cross-site POST (an auto-submitting form)
 * arrives without the cookie and must never overwrite it.
 */
export function mayMintIdentity(method: string, headers: Headers, url: URL): boolean {
  const upper = method.toUpperCase();
  if (upper !== "GET" && upper !== "HEAD") return false;
  if (isSameOrigin(headers, url)) return true;
  return headers.get("sec-fetch-mode") === "navigate" && headers.get("sec-fetch-dest") === "document";
}

export function hasJsonContentType(headers: Headers): boolean {
  return /^application\/json\s*(;|$)/i.test(headers.get("content-type") ?? "");
}

/**
 * Whether the request announces a body: HTTP/1.1 does so with Content-Length
 * or Transfer-Encoding and nothing else. `curl -X DELETE` and a fetch without a
 * body send neither, or `Content-Length: 0`.
 */
export function announcesBody(headers: Headers): boolean {
  if (headers.has("transfer-encoding")) return true;
  const length = headers.get("content-length");
  return length !== null && Number(length) !== 0;
}

/**
 * A state-changing request that sends something must say it sends JSON: a
 * cross-site form or no-cors fetch cannot. One that names no type and sends
 * nothing (a DELETE, a stop) has no media to check; a named type must be JSON
 * even on an empty body, since an empty form still names its own.
 */
export function hasAcceptableBody(headers: Headers): boolean {
  if (!headers.has("content-type") && !announcesBody(headers)) return true;
  return hasJsonContentType(headers);
}

/**
 * Why a state-changing request is refused before it does anything (it came
 * from another origin, or its body is not JSON), or undefined: proxy.ts asks
 * this of every route it runs before, and POST /api/chat, which it skips,
 * asks it itself.
 */
export function stateChangeRefusal(method: string, headers: Headers, url: URL | string): AppError | undefined {
  if (isSafeMethod(method)) return undefined;
  if (!isSameOrigin(headers, url)) return new AppError("forbidden:origin", "This request came from another site and was refused.");
  if (!hasAcceptableBody(headers)) return new AppError("unsupported_media_type:body", "Send a state-changing request's body as application/json.");
  return undefined;
}

/**
 * Why an upload (POST /api/files, a file's bytes as its body, of any type)
 * is refused before it is read: it came from another origin, or it lacks
 * the header that names its file. No cross-site form or no-cors fetch can
 * send a header of its own, so that header stands where a JSON body's type
 * stands for the other routes.
 */
export function uploadRefusal(headers: Headers, url: URL | string, nameHeader: string): AppError | undefined {
  if (!isSameOrigin(headers, url)) return new AppError("forbidden:origin", "This request came from another site and was refused.");
  if (!headers.has(nameHeader)) return new AppError("bad_request:file_name", `Name the file in the ${nameHeader} header (URI-encoded).`);
  return undefined;
}

/**
 * The origin links to this app name: APP_URL when the operator set it, else
 * the one the browser used (Next's own request.url may name another host,
 * behind a proxy or in the standalone server).
 */
export function publicOrigin(request: Request, appUrl: string | undefined): string {
  if (appUrl) return new URL(appUrl).origin;
  const https = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return `${https ? "https" : "http"}://${ownHost(request.headers, request.url)}`;
}

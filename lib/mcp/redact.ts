import "server-only";
import type { McpServerConfig } from "./mcp-config";

// An MCP server's URL may carry a secret (user:password@, ?key=…) and its
// headers do (Authorization). Every line the MCP wing writes (a status note,
// a log line, an error a tool call or a turn ends with) passes through the
// server's scrubber first: the SDK's and undici's own errors quote URLs and
// response bodies, and a server's error page may echo the request back. The
// debug panel that shows these notes is open to any visitor.

const MASK = "***";
/** Shorter "secrets" are not masked: replacing every "ab" in a message would garble it and hide nothing worth hiding. */
const MIN_SECRET = 3;
/** An Authorization header's scheme: a word, not a secret. */
const AUTH_SCHEME = /^(basic|bearer|token|digest)$/i;
/** A URL as it appears inside a message: up to whitespace, a quote or an angle bracket. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>`]+/gi;

/** A URL with its userinfo and query values masked: what a message may say of it. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not one the parser takes: its userinfo and query values masked by hand.
    return raw.replace(/^(https?:\/\/)[^/?#]*@/i, `$1${MASK}@`).replace(/([?&][^=&#]*=)[^&#]*/g, `$1${MASK}`);
  }
  const userinfo = url.username || url.password ? `${MASK}@` : "";
  const keys = [...url.searchParams.keys()];
  const query = keys.length > 0 ? `?${keys.map((key) => `${encodeURIComponent(key)}=${MASK}`).join("&")}` : "";
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query}`;
}

/** Every URL in `text` redacted (redactUrl). */
export const redactUrls = (text: string): string => text.replace(URL_IN_TEXT, (found) => redactUrl(found));

/**
 * The URL a transport may fetch (no userinfo: fetch refuses a URL that has
 * one) and the headers it sends: a URL's `user:password@` becomes Basic
 * authorization, as curl makes it, unless the headers say otherwise.
 */
export function connectionOf(config: McpServerConfig): { url: URL; headers: Record<string, string> } {
  const url = new URL(config.url);
  const headers = { ...config.headers };
  if (url.username || url.password) {
    const hasAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
    if (!hasAuthorization) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      headers.Authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
    }
    url.username = "";
    url.password = "";
  }
  return { url, headers };
}

/** The scrubber for one server's lines: its URL's secrets, its header values and the Basic credentials made of them masked, and every URL redacted. */
export function scrubberFor(config: McpServerConfig): (text: string) => string {
  const secrets = new Set<string>();
  const add = (value: string) => {
    for (const form of [value, safeDecode(value), encodeURIComponent(value)]) if (form.length >= MIN_SECRET) secrets.add(form);
  };
  let url: URL | undefined;
  try {
    url = new URL(config.url);
  } catch {
    // parseMcpServers checked it; a URL that does not parse has no parts to mask, and redactUrls still masks its shape.
  }
  if (url) {
    add(url.username);
    add(url.password);
    if (url.username || url.password) add(`${url.username}:${url.password}`);
    for (const value of url.searchParams.values()) add(value);
  }
  for (const value of [...Object.values(config.headers), ...Object.values(connectionOf(config).headers)]) {
    add(value);
    // "Bearer <token>": the token on its own too, as a server's error may quote it.
    for (const word of value.split(/\s+/)) if (!AUTH_SCHEME.test(word)) add(word);
  }
  // Longest first: a secret that contains another is masked whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = redactUrls(text);
    for (const secret of ordered) out = out.split(secret).join(MASK);
    return out;
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

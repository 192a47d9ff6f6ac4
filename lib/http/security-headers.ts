// The browser-side defences every page and response carries. The page's
// Content-Security-Policy holds a fresh nonce per request, which Next.js puts
// on its own inline scripts; everything else is a fixed header (next.config.ts).

/** The policy for a rendered page. Development adds what React's dev tooling needs (eval, inline styles). */
export function pageContentSecurityPolicy(nonce: string, options: { dev: boolean; https: boolean }): string {
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${options.dev ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  if (options.https) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

/** A page of plain HTML that runs nothing, its one style block under `nonce` (a share link's 404 and 410, written by the proxy). */
export const staticPagePolicy = (nonce: string) =>
  `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** JSON and other non-page responses: nothing may load or frame them. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * An attached file as GET /api/files/:id sends it: a sandbox with nothing
 * allowed, so a file opened on its own (an HTML page saved as .txt, a PDF
 * with scripts) runs nothing and reaches nothing of the app's origin.
 */
export const FILE_CONTENT_SECURITY_POLICY = "default-src 'none'; sandbox; frame-ancestors 'none'";

export const SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** Only over TLS: a browser remembers it for the host. */
export const HSTS = "max-age=63072000; includeSubDomains";

/** A fresh, unguessable nonce (128 bits, base64). */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

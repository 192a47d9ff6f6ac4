import "server-only";
import { FILE_CONTENT_SECURITY_POLICY } from "@/lib/http/security-headers";
import type { StoredFile } from "./file-store";
import { isImage } from "./file-type";

/**
 * A file as its owner downloads it. An image shows inline (the thread's
 * <img> reads it); anything else downloads. The type is what its bytes were
 * found to be and is never sniffed again; a sandboxing CSP keeps a file
 * opened on its own from running anything. An id names one content for
 * good, so the browser may keep it.
 */
export function fileResponse(file: StoredFile): Response {
  const disposition = isImage(file.mediaType) ? "inline" : "attachment";
  const type = file.mediaType.startsWith("text/") || file.mediaType === "application/json" ? `${file.mediaType}; charset=utf-8` : file.mediaType;
  return new Response(new Uint8Array(file.content), {
    headers: {
      "Content-Type": type,
      "Content-Length": String(file.content.length),
      "Content-Disposition": `${disposition}; filename="${asciiName(file.name)}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "X-Content-Type-Options": "nosniff",
      // Also set for the route in next.config.ts, whose header would otherwise replace this one.
      "Content-Security-Policy": FILE_CONTENT_SECURITY_POLICY,
      "Cross-Origin-Resource-Policy": "same-origin",
      "Cache-Control": "private, max-age=31536000, immutable",
    },
  });
}

/** The name for a browser that reads only the plain filename: ASCII, no quotes. */
const asciiName = (name: string) => name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");

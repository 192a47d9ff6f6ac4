import type { NextConfig } from "next";
import { SHARED_HEADERS } from "./lib/shares/shared-headers";
import { API_CONTENT_SECURITY_POLICY, FILE_CONTENT_SECURITY_POLICY, HSTS, SECURITY_HEADERS } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  // A self-contained server in .next/standalone (server.js and only the
  // node_modules it needs): what `npm start` and the Docker image run.
  output: "standalone",
  // pg and the migration runner load optional native/CJS modules at run time;
  // bundling them breaks those dynamic requires.
  serverExternalPackages: ["pg", "node-pg-migrate"],
  // The history package is TypeScript source in the workspace (packages/history), compiled with the app.
  transpilePackages: ["@threadline/history"],
  poweredByHeader: false,
  // Browsers and tools that ask for /favicon.ico without reading the page get the tab icon (app/icon.tsx).
  async rewrites() {
    return [{ source: "/favicon.ico", destination: "/icon/32" }];
  },
  // `npm run dev` serves http://localhost; opening it as 127.0.0.1 must work too.
  allowedDevOrigins: ["127.0.0.1"],
  // Fixed security headers on every response; a page's Content-Security-Policy
  // carries a per-request nonce and is set by proxy.ts.
  async headers() {
    return [
      { source: "/:path*", headers: Object.entries(SECURITY_HEADERS).map(([key, value]) => ({ key, value })) },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
      // An attached file is sandboxed too; the rule after wins (Next's own order), and a route's own header would not.
      { source: "/api/files/:id", headers: [{ key: "Content-Security-Policy", value: FILE_CONTENT_SECURITY_POLICY }] },
      // A share link's pages: never indexed, never named in a Referer; its Markdown and files run nothing.
      { source: "/s/:path*", headers: Object.entries(SHARED_HEADERS).map(([key, value]) => ({ key, value })) },
      { source: "/s/:id/markdown", headers: [{ key: "Content-Security-Policy", value: FILE_CONTENT_SECURITY_POLICY }] },
      { source: "/s/:id/files/:fileId", headers: [{ key: "Content-Security-Policy", value: FILE_CONTENT_SECURITY_POLICY }] },
      {
        source: "/:path*",
        has: [{ type: "header", key: "x-forwarded-proto", value: "https" }],
        headers: [{ key: "Strict-Transport-Security", value: HSTS }],
      },
    ];
  },
};

export default nextConfig;

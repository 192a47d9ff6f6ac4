import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // A self-contained server in .next/standalone (server.js and only the
  // node_modules it needs): what `npm start` and the Docker image run.
  output: "standalone",
  // pg and the migration runner load optional native/CJS modules at run time;
  // bundling them breaks those dynamic requires.
  serverExternalPackages: ["pg", "node-pg-migrate"],
  poweredByHeader: false,
  // `npm run dev` serves http://localhost; opening it as 127.0.0.1 must work too.
  allowedDevOrigins: ["127.0.0.1"],
};

export default nextConfig;

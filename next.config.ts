import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // pg and the migration runner load optional native/CJS modules at run time;
  // bundling them breaks those dynamic requires.
  serverExternalPackages: ["pg", "node-pg-migrate"],
  poweredByHeader: false,
};

export default nextConfig;

import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // pg and the migration runner load optional native/CJS modules at run time;
  // bundling them breaks those dynamic requires.
  serverExternalPackages: ["pg", "node-pg-migrate"],
  poweredByHeader: false,
  // `npm run dev` serves http://localhost; opening it as 127.0.0.1 must work too.
  allowedDevOrigins: ["127.0.0.1"],
};

export default nextConfig;

import { pathToFileURL } from "node:url";

/**
 * Starts a test server with `start` when its module (`moduleUrl`) is the one
 * node was run with, not one a test imports; SIGINT or SIGTERM closes it and
 * exits, and a server that cannot start exits 1. No top-level await, here or
 * in the servers' modules: test files load them through require().
 */
export function serveWhenRun(moduleUrl, start) {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  start().then(
    (server) => {
      for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => server.close().then(() => process.exit(0)));
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

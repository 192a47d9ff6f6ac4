// Preloaded into each server worker of `npm start` (scripts/cluster.mjs): with
// WORKER_HEADER=1, every response names the worker that served it (X-Worker:
// its pid), so an operator, or a test, can tell which worker ran a turn and
// which one took a Stop for it. Off by default: a pid tells a stranger how
// many processes serve and when one restarts. Node publishes each request on
// this diagnostics channel before any handler runs; Next.js keeps a header
// already set on the response. (A plain-Node preload: it reads the variable
// itself, with the rule lib/env.ts checks at start.)
import { subscribe } from "node:diagnostics_channel";

if (/^(1|true)$/i.test(process.env.WORKER_HEADER?.trim() ?? "")) {
  const pid = String(process.pid);
  subscribe("http.server.request.start", ({ response }) => {
    response.setHeader("x-worker", pid);
  });
}

// Preloaded into each server worker of `npm start` (scripts/cluster.mjs):
// every response names the worker that served it (X-Worker: its pid), so an
// operator, or a test, can tell which worker ran a turn and which one took a
// Stop for it. Node publishes each request on this diagnostics channel before
// any handler runs; Next.js keeps a header already set on the response.
import { subscribe } from "node:diagnostics_channel";

const pid = String(process.pid);

subscribe("http.server.request.start", ({ response }) => {
  response.setHeader("x-worker", pid);
});

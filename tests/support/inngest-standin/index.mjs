// A test-only stand-in for the Inngest server. Production (and anyone running
// Threadline with Inngest for real) uses an actual Inngest server: the dev
// server or self-hosted Inngest, see docs/inngest.md. This exists because the test
// machines cannot install the dev server binary, and it implements only what
// Threadline's SDK calls touch, with the paths and JSON the SDK (inngest 4.x)
// uses:
//   POST /e/:eventKey            inngest.send(); answers {ids, status: 200}
//   /v1/realtime/…               token, websocket connect, publish (realtime.mjs)
//   executor                     runs functions through the serve endpoint (executor.mjs)
//   POST /v1/checkpoint/:runId/async  steps a checkpointed run finished (executor.mjs)
//   DELETE /v1/runs/:runId       cancels a run, as Inngest's REST API and dashboard do (executor.mjs)
//   GET  /__standin/state        what it saw, for tests in another process
// Anything else answers 404 and is recorded in `unhandled`, so a new SDK call
// shows up as a failure instead of silently doing nothing.
//
// It is written for one SDK release (sdk-version.mjs) and refuses to start
// against another. Runs are checkpointed, as the SDK and Inngest do by
// default; `mode: "async"` (INNGEST_STANDIN_MODE=async) runs them the way a
// server with checkpointing turned off does, one request per step.
//
// Point the app at it with INNGEST_DEV=<url> (the SDK then uses that URL for
// both the event and the API base). Loopback only, no auth: never expose it.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { serveWhenRun } from "../../../scripts/standalone-server.mjs";
import { readBody } from "../../../scripts/read-body.mjs";
import { Executor } from "./executor.mjs";
import { Realtime } from "./realtime.mjs";
import { assertSdkVersion } from "./sdk-version.mjs";

const CHECKPOINT_PATH = /^\/v1\/checkpoint\/([^/]+)\/async$/;
const RUN_PATH = /^\/v1\/runs\/([^/]+)$/;

export async function startInngestStandin({ port = 0, appUrl, appFetch, retryDelayMs, mode, sdkPackageJson, betweenSteps } = {}) {
  assertSdkVersion(sdkPackageJson);
  const executor = new Executor({
    appUrl: appUrl ?? (appFetch ? "http://threadline.test/api/inngest" : undefined),
    appFetch,
    retryDelayMs,
    mode,
    betweenSteps,
  });
  const realtime = new Realtime();
  const events = [];
  const unhandled = [];
  // What the app asked of it, by kind ("POST /v1/realtime/publish"…), and the TCP connections it opened for that.
  const traffic = { requests: {}, connections: 0 };
  const count = (kind) => (traffic.requests[kind] = (traffic.requests[kind] ?? 0) + 1);

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    try {
      const body = req.method === "POST" ? await readBody(req) : "";
      const route = `${req.method} ${url.pathname}`;
      count(`${req.method} ${url.pathname.replace(/^\/e\/.*/, "/e/:key").replace(CHECKPOINT_PATH, "/v1/checkpoint/:runId/async").replace(RUN_PATH, "/v1/runs/:runId")}`);
      if (req.method === "POST" && url.pathname.startsWith("/e/")) return send(res, acceptEvents(body));
      if (route === "POST /v1/realtime/token") return send(res, realtime.issueToken(parseJson(body)));
      if (route === "POST /v1/realtime/publish") {
        return send(res, realtime.publish(url, String(req.headers["content-type"] ?? ""), body));
      }
      const cancel = req.method === "DELETE" && RUN_PATH.exec(url.pathname);
      if (cancel) return send(res, executor.cancel(decodeURIComponent(cancel[1])));
      const checkpoint = req.method === "POST" && CHECKPOINT_PATH.exec(url.pathname);
      if (checkpoint) return send(res, await executor.checkpoint(decodeURIComponent(checkpoint[1]), parseJson(body)));
      if (route === "GET /__standin/state") {
        const state = { mode: executor.mode, events, runs: executor.runs, published: realtime.published, connections: realtime.connections(), unhandled, traffic };
        return send(res, { status: 200, body: state });
      }
      unhandled.push(route);
      send(res, { status: 404, body: { error: `the Inngest stand-in does not implement ${route}` } });
    } catch (error) {
      send(res, { status: 500, body: { error: String(error?.message ?? error) } });
    }
  });

  server.on("connection", () => (traffic.connections += 1));
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://standin");
    count(`UPGRADE ${url.pathname}`);
    if (url.pathname === "/v1/realtime/connect") return realtime.connect(req, socket, head, url);
    unhandled.push(`UPGRADE ${url.pathname}`);
    socket.destroy();
  });

  function acceptEvents(body) {
    const parsed = parseJson(body);
    const batch = Array.isArray(parsed) ? parsed : [parsed];
    if (!batch.every((e) => e && typeof e.name === "string")) {
      return { status: 400, body: { error: "every event needs a name", status: 400 } };
    }
    const accepted = batch.map((e) => ({ ...e, id: e.id || randomUUID(), ts: e.ts || Date.now(), data: e.data ?? {} }));
    events.push(...accepted);
    if (executor.configured) accepted.forEach((e) => executor.dispatch(e));
    return { status: 200, body: { ids: accepted.map((e) => e.id), status: 200 } };
  }

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const actualPort = server.address().port;
      resolve({
        url: `http://127.0.0.1:${actualPort}`,
        port: actualPort,
        mode: executor.mode,
        events,
        runs: executor.runs,
        published: realtime.published,
        unhandled,
        traffic,
        sync: () => executor.sync(),
        waitForRuns: (eventId) => executor.waitForRuns(eventId),
        idle: () => executor.idle(),
        connections: () => realtime.connections(),
        close: () =>
          new Promise((done) => {
            executor.stop();
            realtime.closeAll();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function send(res, { status, body }) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

serveWhenRun(import.meta.url, async () => {
  const appUrl = process.env.INNGEST_STANDIN_APP_URL;
  // A crash test gives the app time to come back between attempts, as Inngest's backoff does.
  const retryDelayMs = process.env.INNGEST_STANDIN_RETRY_DELAY_MS ? Number(process.env.INNGEST_STANDIN_RETRY_DELAY_MS) : undefined;
  const standin = await startInngestStandin({
    port: Number(process.env.INNGEST_STANDIN_PORT ?? 8288),
    appUrl,
    retryDelayMs,
    mode: process.env.INNGEST_STANDIN_MODE || undefined,
  });
  const running = appUrl ? `, running functions at ${appUrl} (${standin.mode})` : " (no app: events are only recorded)";
  console.log(`Inngest stand-in listening on ${standin.url}${running}`);
  return standin;
});

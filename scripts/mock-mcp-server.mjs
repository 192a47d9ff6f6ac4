// A real MCP server, from the protocol's own SDK, over Streamable HTTP
// (stateless: a server and a transport per request), for the tests and the
// end-to-end suite (as a process: MOCK_MCP_PORT). Its tools:
//   record_note {text}   keeps a note: the side effect a test counts
//   late_note {text}     keeps a note at once, then answers after `lateMs`
//                        (a caller can die between the change and its answer)
//   lookup {word}        answers at once
//   slow {}              waits 5 s: longer than a test's timeout
//   big {chars}          returns that many characters
// Every call is recorded, with the idempotency key its request's _meta
// carried. A note is kept once per key, as a server that honours the key
// does: a call again with a key it has seen answers as the first did and
// changes nothing.
// GET /__calls lists the calls so far, GET /__notes the notes kept; DELETE clears either.
import http from "node:http";
import { serveWhenRun } from "./standalone-server.mjs";
import { readBody } from "./read-body.mjs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const KEY = "threadline/idempotencyKey";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function serverFor(state, authorization) {
  const { calls, notes, lateMs } = state;
  const server = new McpServer({ name: "mock-notes", version: "1.0.0" });
  const text = (value) => ({ content: [{ type: "text", text: value }] });
  const record = (tool, input, extra) => {
    const key = extra?._meta?.[KEY];
    calls.push({ tool, input, authorization, ...(typeof key === "string" ? { key } : {}) });
    return key;
  };
  /** Keeps the note unless its key has kept one already; the answer is the same either way. */
  const keep = (note, key) => {
    if (key === undefined || !notes.some((kept) => kept.key === key)) notes.push({ text: note, ...(key !== undefined ? { key } : {}) });
    return text(`noted: ${note}`);
  };
  server.registerTool("record_note", { description: "Records a note", inputSchema: { text: z.string() } }, async ({ text: note }, extra) =>
    keep(note, record("record_note", { text: note }, extra)),
  );
  server.registerTool("late_note", { description: "Records a note, and says so later", inputSchema: { text: z.string() } }, async ({ text: note }, extra) => {
    const answer = keep(note, record("late_note", { text: note }, extra));
    await sleep(lateMs);
    return answer;
  });
  server.registerTool("lookup", { description: "Looks a word up", inputSchema: { word: z.string() } }, async ({ word }, extra) => {
    record("lookup", { word }, extra);
    return text(`${word} means something`);
  });
  server.registerTool("slow", { description: "Takes its time", inputSchema: {} }, async (_input, extra) => {
    record("slow", {}, extra);
    await sleep(5_000);
    return text("finally");
  });
  server.registerTool("big", { description: "Returns a long text", inputSchema: { chars: z.number() } }, async ({ chars }, extra) => {
    record("big", { chars }, extra);
    return text("x".repeat(chars));
  });
  return server;
}

export async function startMockMcpServer({ port = 0, host = "127.0.0.1", lateMs = 3_000 } = {}) {
  const calls = [];
  const notes = [];
  const lists = { "/__calls": calls, "/__notes": notes };
  const handle = async (req, res) => {
    const path = new URL(req.url ?? "/", "http://mock").pathname;
    const list = lists[path];
    if (list) {
      if (req.method === "DELETE") list.length = 0;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(list));
      return;
    }
    const server = serverFor({ calls, notes, lateMs }, req.headers.authorization);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    const body = req.method === "POST" ? JSON.parse(await readBody(req)) : undefined;
    await transport.handleRequest(req, res, body);
  };

  let listening;
  const start = () =>
    new Promise((resolve, reject) => {
      const server = http.createServer((req, res) => {
        handle(req, res).catch((error) => {
          if (!res.headersSent) res.writeHead(500).end(String(error));
        });
      });
      server.once("error", reject);
      server.listen(port, host, () => {
        port = server.address().port;
        listening = server;
        resolve();
      });
    });
  const stop = () =>
    new Promise((resolve) => {
      if (!listening) return resolve();
      listening.closeAllConnections();
      listening.close(() => resolve());
      listening = undefined;
    });
  await start();
  return { url: `http://${host}:${port}/mcp`, port, calls, notes, stop, start, close: stop };
}

serveWhenRun(import.meta.url, async () => {
  const mcp = await startMockMcpServer({ port: Number(process.env.MOCK_MCP_PORT ?? 4020) });
  console.log(`mock MCP server listening on ${mcp.url}`);
  return mcp;
});

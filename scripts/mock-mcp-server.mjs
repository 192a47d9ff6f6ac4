// A real MCP server, from the protocol's own SDK, over Streamable HTTP
// (stateless: a server and a transport per request), for the tests and the
// end-to-end suite (as a process: MOCK_MCP_PORT). Its tools:
//   record_note {text}   records the call (the side effect a test counts)
//   lookup {word}        answers at once
//   slow {}              waits 5 s: longer than a test's timeout
//   big {chars}          returns that many characters
// GET /__calls lists the calls so far, DELETE /__calls clears them.
import http from "node:http";
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function serverFor(calls, authorization) {
  const server = new McpServer({ name: "mock-notes", version: "1.0.0" });
  const text = (value) => ({ content: [{ type: "text", text: value }] });
  server.registerTool("record_note", { description: "Records a note", inputSchema: { text: z.string() } }, async ({ text: note }) => {
    calls.push({ tool: "record_note", input: { text: note }, authorization });
    return text(`noted: ${note}`);
  });
  server.registerTool("lookup", { description: "Looks a word up", inputSchema: { word: z.string() } }, async ({ word }) => {
    calls.push({ tool: "lookup", input: { word }, authorization });
    return text(`${word} means something`);
  });
  server.registerTool("slow", { description: "Takes its time", inputSchema: {} }, async () => {
    calls.push({ tool: "slow", input: {}, authorization });
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    return text("finally");
  });
  server.registerTool("big", { description: "Returns a long text", inputSchema: { chars: z.number() } }, async ({ chars }) => {
    calls.push({ tool: "big", input: { chars }, authorization });
    return text("x".repeat(chars));
  });
  return server;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

export async function startMockMcpServer({ port = 0, host = "127.0.0.1" } = {}) {
  const calls = [];
  const handle = async (req, res) => {
    const path = new URL(req.url ?? "/", "http://mock").pathname;
    if (path === "/__calls") {
      if (req.method === "DELETE") calls.length = 0;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(calls));
      return;
    }
    const server = serverFor(calls, req.headers.authorization);
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
  return { url: `http://${host}:${port}/mcp`, port, calls, stop, start, close: stop };
}

async function runStandalone() {
  const mcp = await startMockMcpServer({ port: Number(process.env.MOCK_MCP_PORT ?? 4020) });
  console.log(`mock MCP server listening on ${mcp.url}`);
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => mcp.close().then(() => process.exit(0)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runStandalone().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

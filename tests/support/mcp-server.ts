import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** A call a tool of the test's MCP server received. */
export interface RecordedCall {
  tool: string;
  input: Record<string, unknown>;
  /** The request's headers: the config's headers reach the server. */
  authorization?: string;
}

export interface TestMcpServer {
  url: string;
  calls: RecordedCall[];
  /** Stops answering (the port closes); `start` opens it again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real MCP server, from the protocol's own SDK, over Streamable HTTP
 * (stateless: a server and transport per request): `record_note` records
 * each call (the side effect a test counts), `lookup` answers at once,
 * `slow` waits longer than any test's timeout, `big` returns `chars`
 * characters.
 */
export async function startTestMcpServer(): Promise<TestMcpServer> {
  const calls: RecordedCall[] = [];
  const serverFor = (authorization: string | undefined) => {
    const server = new McpServer({ name: "test-notes", version: "1.0.0" });
    server.registerTool("record_note", { description: "Records a note", inputSchema: { text: z.string() } }, async ({ text }) => {
      calls.push({ tool: "record_note", input: { text }, authorization });
      return { content: [{ type: "text", text: `noted: ${text}` }] };
    });
    server.registerTool("lookup", { description: "Looks a word up", inputSchema: { word: z.string() } }, async ({ word }) => {
      calls.push({ tool: "lookup", input: { word }, authorization });
      return { content: [{ type: "text", text: `${word} means something` }] };
    });
    server.registerTool("slow", { description: "Takes its time", inputSchema: {} }, async () => {
      calls.push({ tool: "slow", input: {}, authorization });
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      return { content: [{ type: "text", text: "finally" }] };
    });
    server.registerTool("big", { description: "Returns a long text", inputSchema: { chars: z.number() } }, async ({ chars }) => {
      calls.push({ tool: "big", input: { chars }, authorization });
      return { content: [{ type: "text", text: "x".repeat(chars) }] };
    });
    return server;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const server = serverFor(req.headers.authorization);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    const body = req.method === "POST" ? JSON.parse(await read(req)) : undefined;
    await transport.handleRequest(req, res, body);
  };

  let http_: http.Server | undefined;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const server = http.createServer((req, res) => {
        handle(req, res).catch((error) => {
          if (!res.headersSent) res.writeHead(500).end(String(error));
        });
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        port = (server.address() as AddressInfo).port;
        http_ = server;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!http_) return resolve();
      http_.closeAllConnections();
      http_.close(() => resolve());
      http_ = undefined;
    });
  await start();
  return { url: `http://127.0.0.1:${port}/mcp`, calls, stop, start, close: stop };
}

function read(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

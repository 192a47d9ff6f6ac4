// An MCP server of the kind that predates Streamable HTTP, built from the
// SDK's own SSEServerTransport: GET /sse opens a session's stream, and the
// client posts that session's requests to /messages?sessionId=... A POST to
// /sse (a Streamable HTTP client's first request) gets what such a server
// gives, 405 or 404, so a client that falls back to SSE is tried for real.
// Its one tool, echo {text}, records each call (what a test counts).
import type http from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { z } from "zod";
import { listenHttp } from "./listen-http";

export interface EchoCall {
  text: string;
  /** The Authorization header of the POST that carried the call. */
  authorization?: string;
  /** The key the client put in the request's _meta, if any. */
  idempotencyKey?: unknown;
}

export interface SseMcpServer {
  /** The SSE endpoint, as an operator would configure it. */
  url: string;
  port: number;
  calls: EchoCall[];
  /** Requests seen: POSTs to the SSE endpoint (Streamable HTTP attempts) and streams opened. */
  counts: { streamablePosts: number; streams: number };
  /** Drops every connection and stops listening: a server that is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function serverFor(calls: EchoCall[]): McpServer {
  const server = new McpServer({ name: "sse-echo", version: "1.0.0" });
  server.registerTool("echo", { description: "Says the text back", inputSchema: { text: z.string() } }, async ({ text }, extra) => {
    const authorization = extra.requestInfo?.headers.authorization;
    const idempotencyKey = extra._meta?.["threadline/idempotencyKey"];
    calls.push({
      text,
      ...(typeof authorization === "string" ? { authorization } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    });
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  });
  return server;
}

export async function startSseMcpServer({
  port = 0,
  host = "127.0.0.1",
  streamableStatus = 405,
}: { port?: number; host?: string; streamableStatus?: 404 | 405 } = {}): Promise<SseMcpServer> {
  const calls: EchoCall[] = [];
  const counts = { streamablePosts: 0, streams: 0 };
  const sessions = new Map<string, SSEServerTransport>();

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://sse-mock");
    if (url.pathname === "/sse" && req.method === "GET") {
      counts.streams++;
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      await serverFor(calls).connect(transport);
      return;
    }
    if (url.pathname === "/sse" && req.method === "POST") {
      counts.streamablePosts++;
      // Its body is never read; drained, the connection stays usable for the client's next request.
      req.resume();
      res.writeHead(streamableStatus, streamableStatus === 405 ? { Allow: "GET" } : {}).end();
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        req.resume();
        res.writeHead(404).end("unknown session");
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    req.resume();
    res.writeHead(404).end();
  };

  let listening: http.Server | undefined;
  const start = async () => {
    ({ server: listening, port } = await listenHttp(handle, port, host));
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      const server = listening;
      if (!server) return resolve();
      listening = undefined;
      // The open streams would keep close() waiting forever.
      server.closeAllConnections();
      server.close(() => resolve());
    });

  await start();
  return {
    url: `http://${host}:${port}/sse`,
    port,
    calls,
    counts,
    stop,
    start,
    close: stop,
  };
}

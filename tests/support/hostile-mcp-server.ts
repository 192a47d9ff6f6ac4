// An MCP server that misbehaves on request, written against the protocol's
// JSON-RPC by hand (the SDK's own server cannot be told to hang or to flood):
// Streamable HTTP with one session, whose GET stream carries
// notifications/tools/list_changed. What it can be told to be:
//   "ok"            answers as a server should
//   "hang-connect"  takes the initialize request and never answers it
//   "hang-sse"      refuses Streamable HTTP (404) and opens the SSE stream a
//                   fallback asks for, but never sends its endpoint
//   "echo-errors"   answers every request 500, its body quoting the request's
//                   URL and Authorization header, as careless servers do
// Its tools: echo {text}; huge {mb}, a result of that many megabytes of "x",
// written as fast as the client reads it (in JSON, or as one SSE event when
// `sseResults`), counting the bytes it got out before the client hung up.
import type http from "node:http";
import { listenHttp } from "./listen-http";

export type HostileMode = "ok" | "hang-connect" | "hang-sse" | "echo-errors";

export interface HugeResult {
  /** Bytes of the result written to the socket before it closed (or all of them). */
  sent: number;
  /** Bytes the whole result would have been. */
  size: number;
  /** The client closed the connection before the result was all written. */
  cutShort: boolean;
}

export interface HostileMcpServer {
  url: string;
  mode: HostileMode;
  /** Send the tools' results as SSE events rather than JSON. */
  sseResults: boolean;
  counts: { initialize: number; lists: number; calls: number; posts: number; streams: number };
  /** The tools it lists: a test adds one and announces the change. */
  tools: { name: string; description: string; inputSchema: Record<string, unknown> }[];
  /** Each huge result, as it went. */
  huge: HugeResult[];
  /** Tells every open GET stream that the tools changed. */
  announceToolsChanged(): void;
  /** Drops every connection and stops listening: a server that is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const MB = 1024 * 1024;
const CHUNK = "x".repeat(64 * 1024);

/** Resolves once the response can take more, or has closed. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

export async function startHostileMcpServer({ mode = "ok" as HostileMode, host = "127.0.0.1" } = {}): Promise<HostileMcpServer> {
  const held = new Set<http.ServerResponse>();
  const streams = new Set<http.ServerResponse>();
  const state: HostileMcpServer = {
    url: "",
    mode,
    sseResults: false,
    counts: { initialize: 0, lists: 0, calls: 0, posts: 0, streams: 0 },
    tools: [
      { name: "echo", description: "Says the text back", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
      { name: "huge", description: "Returns megabytes of text", inputSchema: { type: "object", properties: { mb: { type: "number" } }, required: ["mb"] } },
    ],
    huge: [],
    announceToolsChanged() {
      for (const res of streams) res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`);
    },
    stop: async () => {
      const server = listening;
      if (!server) return;
      listening = undefined;
      for (const res of [...held, ...streams]) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    start: () => listen(),
    close: () => state.stop(),
  };
  let listening: http.Server | undefined;
  let port = 0;

  /** Keeps the request open, answering nothing: a server that hangs. */
  const hold = (res: http.ServerResponse) => {
    held.add(res);
    res.on("close", () => held.delete(res));
  };

  const answer = (res: http.ServerResponse, id: unknown, result: unknown) =>
    res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "hostile-1" }).end(JSON.stringify({ jsonrpc: "2.0", id, result }));

  const hugeResult = async (res: http.ServerResponse, id: unknown, mb: number) => {
    const head = JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "" }] } });
    const [before, after] = [head.slice(0, head.indexOf('""') + 1), head.slice(head.indexOf('""') + 1)];
    const record: HugeResult = { sent: 0, size: before.length + mb * MB + after.length, cutShort: false };
    state.huge.push(record);
    let closed = false;
    res.on("close", () => {
      closed = true;
      record.cutShort = record.sent < record.size;
    });
    const sse = state.sseResults;
    res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json", "mcp-session-id": "hostile-1" });
    const write = async (text: string) => {
      if (closed) return;
      const flowing = res.write(text);
      record.sent += Buffer.byteLength(text);
      if (!flowing) await drained(res);
    };
    await write(sse ? `event: message\ndata: ${before}` : before);
    for (let written = 0; written < mb * MB && !closed; written += CHUNK.length) await write(CHUNK);
    await write(sse ? `${after}\n\n` : after);
    if (!closed) res.end();
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const current = state.mode;
    if (current === "echo-errors") {
      req.resume();
      res.writeHead(500, { "content-type": "text/plain" }).end(`Cannot ${req.method} ${req.url} (authorization: ${req.headers.authorization ?? "none"})`);
      return;
    }
    if (req.method === "GET") {
      if (current === "hang-sse") {
        state.counts.streams++;
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.flushHeaders();
        return hold(res);
      }
      state.counts.streams++;
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "hostile-1" });
      res.flushHeaders();
      streams.add(res);
      res.on("close", () => streams.delete(res));
      return;
    }
    if (req.method === "DELETE") {
      res.writeHead(200).end();
      return;
    }
    state.counts.posts++;
    if (current === "hang-sse") {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body) as { id?: unknown; method: string; params?: Record<string, unknown> };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    switch (message.method) {
      case "initialize":
        state.counts.initialize++;
        if (current === "hang-connect") return hold(res);
        return answer(res, message.id, {
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "hostile", version: "1.0.0" },
        });
      case "tools/list":
        state.counts.lists++;
        return answer(res, message.id, { tools: state.tools });
      case "tools/call": {
        state.counts.calls++;
        const { name, arguments: input } = message.params as { name: string; arguments: { text?: string; mb?: number } };
        if (name === "huge") return hugeResult(res, message.id, input.mb ?? 1);
        return answer(res, message.id, { content: [{ type: "text", text: `echo: ${input.text ?? ""}` }] });
      }
      case "ping":
        return answer(res, message.id, {});
      default:
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no such method" } }));
    }
  };

  const listen = async () => {
    ({ server: listening, port } = await listenHttp(handle, port, host));
  };
  await listen();
  state.url = `http://${host}:${port}/mcp`;
  return state;
}

/** A call a tool of the mock MCP server received. */
export interface RecordedCall {
  tool: string;
  input: Record<string, unknown>;
  /** The request's Authorization header: the config's headers reach the server. */
  authorization?: string;
  /** The idempotency key the request's _meta carried (an approved call's). */
  key?: string;
}

/** A note the server kept: once per idempotency key. */
export interface KeptNote {
  text: string;
  key?: string;
}

export interface MockMcpServer {
  /** Its Streamable HTTP endpoint, e.g. "http://127.0.0.1:4020/mcp". */
  url: string;
  port: number;
  calls: RecordedCall[];
  notes: KeptNote[];
  /** Stops answering (the port closes); `start` opens it again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export function startMockMcpServer(options?: { port?: number; host?: string; /** How long late_note waits to answer, after keeping its note (default 3 s). */ lateMs?: number }): Promise<MockMcpServer>;

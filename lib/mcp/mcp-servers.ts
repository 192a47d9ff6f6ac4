import "server-only";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import type { JsonValue } from "@threadline/history/parts";
import { defineTool, type AgentTool } from "@/lib/agent/network/tools/types";
import type { McpServerConfig } from "@/lib/mcp-config";
import { BRAND } from "@/lib/brand";
import type { McpServerStatus } from "@/lib/protocol/mcp";

/** How long connecting to a server, or listing its tools, may take before the turn goes on without it. */
const LIST_TIMEOUT_MS = 5_000;
/** A tool's full name the providers accept: `<server>__<tool>`. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface McpOptions {
  /** How long one tool call may take. */
  callTimeoutMs: number;
  /** The most characters of a result the model is given. */
  maxResultChars: number;
  log?: (line: string) => void;
}

interface ServerState {
  config: McpServerConfig;
  client?: Client;
  /** The ask under way: turns that start meanwhile share it (one connection, one list). */
  refreshing?: Promise<void>;
  tools: AgentTool[];
  status: McpServerStatus;
}

/**
 * The operator's MCP servers (MCP_SERVERS), each connected on first use with
 * the protocol's own SDK: Streamable HTTP, with SSE as the fallback. Before
 * each turn every server is asked for its tools again: the answer is the
 * turn's list, and a server that does not answer in time (down, slow) is
 * left out of that turn, never failing it; the next turn asks again, so a
 * server that comes back is back in the list. Its tools reach the agents as
 * `<server>__<tool>`, every call asking the user first unless the server's
 * `autoApprove` names it.
 */
export class McpServers {
  private readonly servers: ServerState[];
  /** The last list handed out, kept while it is the same: an agent built with it is built once. */
  private last: AgentTool[] = [];

  constructor(configs: McpServerConfig[], private readonly options: McpOptions) {
    this.servers = configs.map((config) => ({
      config,
      tools: [],
      status: { name: config.name, connected: false, tools: [], note: "not connected yet" },
    }));
  }

  get configured(): boolean {
    return this.servers.length > 0;
  }

  /** Every server's tools for a turn, each server asked now; the servers that do not answer are left out. */
  async tools(): Promise<AgentTool[]> {
    await Promise.all(
      this.servers.map((server) => (server.refreshing ??= this.refresh(server).finally(() => (server.refreshing = undefined)))),
    );
    const tools = this.servers.flatMap((server) => server.tools);
    const same = tools.length === this.last.length && tools.every((tool, i) => tool === this.last[i]);
    if (!same) this.last = tools;
    return this.last;
  }

  /** Where each server stands now: each is asked for its tools first (the debug panel's look). */
  async statusNow(): Promise<McpServerStatus[]> {
    await this.tools();
    return this.status();
  }

  /** Where each server stands, as of the last turn. */
  status(): McpServerStatus[] {
    return this.servers.map((server) => ({ ...server.status, tools: [...server.status.tools] }));
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.client?.close().catch(() => {})));
  }

  private async refresh(server: ServerState): Promise<void> {
    try {
      const kept = server.client !== undefined;
      try {
        await this.list(server);
      } catch (error) {
        // A client kept from an earlier turn may hold a session the server has since forgotten (it restarted
        // in between): one new connection before the turn goes without it. A slow server is not asked twice.
        if (!kept || isTimeout(error)) throw error;
        await server.client?.close().catch(() => {});
        server.client = undefined;
        await this.list(server);
      }
    } catch (error) {
      const before = server.status;
      await server.client?.close().catch(() => {});
      server.client = undefined;
      server.tools = [];
      const note = `unavailable: ${reason(error)}`;
      server.status = { name: server.config.name, connected: false, tools: [], note };
      // Said when it goes, not on every turn while it stays away for the same reason.
      if (before.connected || before.note !== note) this.options.log?.(`[mcp] ${server.config.name} is ${note}; its tools are left out until it answers again`);
    }
  }

  private async list(server: ServerState): Promise<void> {
    server.client ??= await this.connect(server.config);
    const listed = await server.client.listTools(undefined, { timeout: LIST_TIMEOUT_MS });
    this.adopt(server, listed.tools);
  }

  private async connect(config: McpServerConfig): Promise<Client> {
    const requestInit = { headers: config.headers };
    const attempt = async (transport: Transport) => {
      const client = new Client({ name: BRAND.name, version: "1" });
      await client.connect(transport, { timeout: LIST_TIMEOUT_MS });
      return client;
    };
    if (config.transport === "sse") return attempt(new SSEClientTransport(new URL(config.url), { requestInit }));
    try {
      return await attempt(new StreamableHTTPClientTransport(new URL(config.url), { requestInit }));
    } catch (streamable) {
      // An older server speaks only SSE; if that fails too, the first reason is the one that matters.
      try {
        return await attempt(new SSEClientTransport(new URL(config.url), { requestInit }));
      } catch {
        throw streamable;
      }
    }
  }

  /** The listed tools as the agents' tools: the same objects while a tool is listed the same, so a turn's agent is built once per list. */
  private adopt(server: ServerState, listed: { name: string; description?: string; inputSchema: unknown }[]): void {
    const { name } = server.config;
    const kept = new Map(server.tools.map((tool) => [tool.name, tool]));
    const skipped: string[] = [];
    const tools: AgentTool[] = [];
    for (const tool of listed) {
      const full = `${name}__${tool.name}`;
      if (!TOOL_NAME.test(full)) {
        skipped.push(tool.name);
        continue;
      }
      const signature = JSON.stringify([tool.description ?? "", tool.inputSchema]);
      const known = kept.get(full) as (AgentTool & { signature?: string }) | undefined;
      tools.push(known?.signature === signature ? known : Object.assign(this.agentTool(server, tool, full), { signature }));
    }
    server.tools = tools;
    const note = skipped.length > 0 ? `left out (names a provider would refuse): ${skipped.join(", ")}` : undefined;
    if (!server.status.connected) this.options.log?.(`[mcp] ${name} connected: ${tools.length} tool${tools.length === 1 ? "" : "s"}`);
    server.status = { name, connected: true, tools: tools.map((t) => t.name), ...(note ? { note } : {}) };
  }

  private agentTool(server: ServerState, tool: { name: string; description?: string; inputSchema: unknown }, full: string): AgentTool {
    const { callTimeoutMs, maxResultChars } = this.options;
    const { name: serverName, autoApprove } = server.config;
    return defineTool({
      name: full,
      description: `${tool.description ?? tool.name} (a tool of the MCP server "${serverName}")`,
      input: inputSchemaOf(tool.inputSchema),
      needsApproval: !autoApprove.includes(tool.name),
      execute: async (input, context) => {
        const client = server.client;
        if (!client) throw new Error(`The MCP server "${serverName}" is unavailable; try again later.`);
        let result;
        try {
          // An approved call's key rides in the request's _meta: a server that keys its change by it changes nothing twice after a crash.
          const meta = context.idempotencyKey ? { _meta: { "threadline/idempotencyKey": context.idempotencyKey } } : {};
          result = await client.callTool({ name: tool.name, arguments: input as Record<string, unknown>, ...meta }, undefined, {
            timeout: callTimeoutMs,
            // The call's own signal (runTool's), never the turn's: the SDK leaves its listener on it.
            signal: context.signal,
          });
        } catch (error) {
          if (isTimeout(error)) {
            throw new Error(`The MCP server "${serverName}" did not answer within ${Math.round(callTimeoutMs / 1000)} s.`);
          }
          throw new Error(`The MCP server "${serverName}" failed: ${reason(error)}`);
        }
        const text = resultText(result.content);
        if (result.isError) throw new Error(capped(text || "the tool reported an error", maxResultChars));
        const structured = result.structuredContent as JsonValue | undefined;
        if (structured !== undefined && JSON.stringify(structured).length <= maxResultChars) return structured;
        return capped(text, maxResultChars);
      },
    });
  }
}

/**
 * A tool's JSON Schema as the zod schema the agents' tools are checked with
 * (zod's own converter); one it cannot convert takes any object, and the
 * server checks it.
 */
function inputSchemaOf(schema: unknown): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

/** A result's content as text: its text parts, and a line for anything else (an image, a resource). */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((item: { type?: string; text?: string; uri?: string; resource?: { uri?: string; text?: string } }) => {
      if (item.type === "text") return item.text ?? "";
      if (item.type === "resource") return item.resource?.text ?? `[resource ${item.resource?.uri ?? ""}]`;
      if (item.type === "resource_link") return `[resource ${item.uri ?? ""}]`;
      return `[${item.type ?? "content"} left out]`;
    })
    .join("\n");
}

/** At most `max` characters, with a note of what was cut. */
function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[cut: the result was ${text.length.toLocaleString("en-US")} characters; the first ${max.toLocaleString("en-US")} are shown]`;
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0].slice(0, 300);

/** A request that ran out of time (the SDK's own timeout, or ours), as opposed to one refused or broken. */
const isTimeout = (error: unknown): boolean => /timed? ?out/i.test(reason(error));

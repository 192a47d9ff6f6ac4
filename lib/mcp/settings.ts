import "server-only";
import { fail, slice, text, wholeNumber, type SettingsOf } from "@/lib/env";
import { parseMcpServers } from "./mcp-config";

/** The MCP wing's part of the configuration: the servers, read and checked (their file too) as the server starts, and their bounds. */
export const mcpSettings = slice({
  shape: {
    /** The MCP tool servers the agents may call: JSON, or the path of a JSON file, `{ "mcpServers": { … } }` (lib/mcp/mcp-config.ts). */
    MCP_SERVERS: text.max(100_000).optional().describe("MCP servers"),
    /** How long one MCP tool call may take before it ends as an error the model reads. */
    MCP_TOOL_TIMEOUT_SECONDS: wholeNumber(1, 3_600).default(30).describe("MCP tool timeout, seconds"),
    /** How long connecting to an MCP server, its SSE fallback and listing its tools may each take; the most a turn waits for a server not reached yet. */
    MCP_CONNECT_TIMEOUT_SECONDS: wholeNumber(1, 120).default(5).describe("MCP connect timeout, seconds"),
    /** The most characters of one MCP tool result the model is given; the rest is cut, with a note. */
    MCP_RESULT_MAX_CHARS: wholeNumber(100, 1_000_000).default(20_000).describe("MCP result cap, characters"),
  },
  finish(settings) {
    const mcp = parseMcpServers(settings.MCP_SERVERS);
    if ("error" in mcp) return fail(mcp.error);
    return { mcpServers: mcp.servers };
  },
});

/** The MCP wing's configuration; `mcpServers`: the servers MCP_SERVERS names. */
export type McpSettings = SettingsOf<typeof mcpSettings>;

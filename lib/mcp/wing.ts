import "server-only";
import type { Wing, WingParts } from "@/lib/wing";
import { McpServers } from "./mcp-servers";
import type { McpSettings } from "./settings";

// The operator's MCP tool servers: connected on first use, closed with the
// app, their tools listed before each turn and given to Researcher.

function services({ config, onClose }: WingParts<McpSettings>) {
  let servers: McpServers | undefined;
  onClose(async () => {
    await servers?.close();
    servers = undefined;
  });
  return {
    /** The operator's MCP tool servers (MCP_SERVERS), connected on first use. */
    mcp: (): McpServers =>
      (servers ??= new McpServers(config.mcpServers, {
        callTimeoutMs: config.MCP_TOOL_TIMEOUT_SECONDS * 1000,
        connectTimeoutMs: config.MCP_CONNECT_TIMEOUT_SECONDS * 1000,
        maxResultChars: config.MCP_RESULT_MAX_CHARS,
        log: (line) => console.warn(line),
      })),
  };
}

export const mcpWing: Wing<{ mcp(): McpServers }, ReturnType<typeof services>, McpSettings> = {
  name: "mcp",
  tables: [],
  services,
  listedTools(app) {
    const mcp = app.mcp();
    return mcp.configured ? { tools: (step) => mcp.tools(step), unlisted: (name) => mcp.unlistedTool(name) } : undefined;
  },
};

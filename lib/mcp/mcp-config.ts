// The MCP tool servers an operator plugs in (MCP_SERVERS), in the common
// `{ "mcpServers": { "<name>": { "url", "headers", "autoApprove" } } }` shape:
// read from the variable itself (JSON) or from the file it names, and checked
// as the server starts, so a bad one stops the start in one line. Pure but for
// reading that file.
import { readFileSync } from "node:fs";
import { z } from "zod";

/** A server's name: its tools reach the agents as `<name>__<tool>`, which a provider's tool-name rules must take. */
const SERVER_NAME = /^[A-Za-z0-9-]{1,24}$/;
/** At most this many servers. */
const MAX_SERVERS = 20;

export interface McpServerConfig {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The server's own tool names that run without asking the user first. */
  autoApprove: string[];
  /** "sse": the older transport only; otherwise Streamable HTTP, with SSE as the fallback. */
  transport: "http" | "sse";
}

const serverSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
    headers: z.record(z.string(), z.string({ error: "must be a string" }), { error: "must be an object of header names and values" }).optional(),
    autoApprove: z.array(z.string({ error: "must be a tool's name" }).min(1, "must be a tool's name"), { error: "must be a list of the server's tool names" }).optional(),
    type: z.enum(["http", "streamable-http", "streamableHttp", "sse"], { error: 'must be "http", "streamable-http" or "sse"' }).optional(),
  }, { error: "must be an object with a url" });

const fileSchema = z.object(
  { mcpServers: z.record(z.string(), z.unknown(), { error: "must be an object of servers by name" }) },
  { error: 'must be an object with "mcpServers"' },
);

/** The servers MCP_SERVERS names (none when unset), or the one line that says what is wrong with it. */
export function parseMcpServers(value: string | undefined): { servers: McpServerConfig[] } | { error: string } {
  if (value === undefined) return { servers: [] };
  let text = value;
  const inline = value.trimStart().startsWith("{");
  if (!inline) {
    try {
      text = readFileSync(value, "utf8");
    } catch (error) {
      return { error: `MCP_SERVERS names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}): ${value}; give a JSON file's path, or the JSON itself.` };
    }
  }
  const where = inline ? "MCP_SERVERS" : `MCP_SERVERS (${value})`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `${where} is not JSON: ${(error as Error).message}.` };
  }
  const file = fileSchema.safeParse(json);
  if (!file.success) return { error: `${where} ${issueLine(file.error)}` };
  const entries = Object.entries(file.data.mcpServers);
  if (entries.length > MAX_SERVERS) return { error: `${where} lists ${entries.length} servers; at most ${MAX_SERVERS}.` };
  const servers: McpServerConfig[] = [];
  for (const [name, raw] of entries) {
    if (!SERVER_NAME.test(name)) {
      return { error: `${where} names a server "${name}": a name must be 1-24 letters, digits or '-' (its tools are called <name>__<tool>).` };
    }
    if (raw && typeof raw === "object" && !("url" in raw) && "command" in raw) {
      return { error: `${where} server "${name}" is started by a command: only servers reached over HTTP (Streamable HTTP or SSE) are supported; give its url.` };
    }
    const parsed = serverSchema.safeParse(raw);
    if (!parsed.success) return { error: `${where} server "${name}": ${issueLine(parsed.error)}` };
    const { url, headers = {}, autoApprove = [], type } = parsed.data;
    servers.push({ name, url, headers, autoApprove, transport: type === "sse" ? "sse" : "http" });
  }
  return { servers };
}

/** A zod error as one line: where, and what it must be. */
function issueLine(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue.path.length > 0 ? `${issue.path.join(".")} ` : "";
  return `${path}${issue.message}.`;
}

// What the chat page's debug panel (?debug=true) shows of the operator's MCP
// servers. Isomorphic: types only.

/**
 * One MCP server as the last look at it found it. Its URL stays on the
 * server: any visitor may open the debug panel, and a URL may carry a key.
 */
export interface McpServerStatus {
  name: string;
  connected: boolean;
  /** Its tools as the agents call them, `<server>__<tool>`. */
  tools: string[];
  /** Why it is not connected, or why some of its tools were left out. */
  note?: string;
}

export interface MockModelServer {
  /** Base URL for an OpenAI-compatible provider, e.g. "http://127.0.0.1:4010/v1". */
  url: string;
  port: number;
  /** Every chat-completion request body received, oldest first. */
  requests: unknown[];
  close(): Promise<void>;
}

export function startMockModelServer(options?: { port?: number; host?: string }): Promise<MockModelServer>;

export const SLOW_REPLY: string;
export const MARKDOWN_REPLY: string;
export const LEAKED_KEY_HINT: string;
export function echoReply(text: string, userCount: number, assistantCount: number): string;
export function messageText(content: unknown): string;
export function chunksOf(reply: string): string[];
export function planReply(body: unknown, options?: { brokenBefore?: (text: string) => boolean }):
  | { kind: "error" }
  | { kind: "auth-error" }
  | { kind: "fail-mid"; reply: string }
  | { kind: "reply"; reply: string; delayMs?: number };

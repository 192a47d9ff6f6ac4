export interface MockModelServer {
  /** Base URL for an OpenAI-compatible provider, e.g. "http://127.0.0.1:4010/v1". */
  url: string;
  port: number;
  /** Every chat-completion request body received, oldest first. */
  requests: unknown[];
  /** The usage each answer reported, oldest first, with the model asked and the kind of request. */
  usages: { model: string; kind: "answer" | "title" | "summary" | "memory"; inputTokens: number; outputTokens: number; reasoningTokens: number }[];
  /** Requests so far by kind: an answer in a turn, a thread's title, a compaction's summary. */
  calls: { answer: number; title: number; summary: number; memory: number };
  /** Answers the [[title-held]] title requests waiting so far: those whose request holds `token`, or every one. */
  releaseTitles(token?: string): void;
  close(): Promise<void>;
}

export function startMockModelServer(options?: { port?: number; host?: string }): Promise<MockModelServer>;

export const SLOW_REPLY: string;
export const MARKDOWN_REPLY: string;
export const LEAKED_KEY_HINT: string;
export function echoReply(text: string, userCount: number, assistantCount: number): string;
/** The reply to a summary request: "Summary: " and the transcript's user lines, each as `said <text>`. */
export function summaryReply(requestText: string): string;
/** The answer to a title request: the [[title:TEXT]] marker's TEXT, else the user's message it quotes. */
export function titleReply(requestText: string): string;
export function messageText(content: unknown): string;
export function chunksOf(reply: string): string[];
/** What [[reason]] streams as reasoning_content before the reply or the tool calls. */
export const REASONING_TEXT: string;
export const ONE_TOKEN_REPLY: string;
export const SPLIT_EMOJI_REPLY: string;
export const LONG_REPLY: string;
export const HUGE_REPLY: string;
export const HUGE_REPLY_FIRST_WORD: string;
/** The reply once tool results came back: `Tool results: NAME → CONTENT; NAME → CONTENT`. */
export function toolResultsReply(results: ReadonlyArray<{ name: string; content: string }>): string;
/** A [[call:NAME:JSON]] marker: the tool's name and its arguments' JSON text. */
export interface MarkedCall {
  name: string;
  arguments: string;
}
/** The [[call:NAME:JSON]] markers in a text, in order. */
export function callMarkers(text: string): MarkedCall[];
export function planReply(
  body: unknown,
  options?: { brokenBefore?: (text: string) => boolean; headers?: Readonly<Record<string, string | string[] | undefined>> },
):
  | { kind: "error" }
  | { kind: "auth-error" }
  | { kind: "hang" }
  | { kind: "fail-mid"; reply: string }
  | { kind: "reply"; reply: string; delayMs?: number; reasoning?: string; held?: boolean; waitMs?: number }
  | { kind: "tool-calls"; calls: MarkedCall[]; sameId?: boolean; delayMs?: number; reasoning?: string };
export const BENCH_FIRST_TOKEN_MS: number;
export const BENCH_TOKENS: number;
export const BENCH_TOKEN_GAP_MS: number;

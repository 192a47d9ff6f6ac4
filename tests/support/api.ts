import { randomUUID } from "node:crypto";
import { readUIMessageStream, type UIMessageChunk } from "ai";
import { IDENTITY_COOKIE, signIdentity } from "@/lib/auth/identity";
import { fromUIParts } from "@/lib/protocol/parts-codec";
import type { ChatMessage } from "@/lib/protocol/chat";
import type { Part } from "@threadline/history/parts";

export const SESSION_SECRET = "integration-secret-0123456789abcdef0123456789";

/** A signed identity cookie header for a new anonymous visitor. */
export async function visitor(): Promise<{ id: string; cookie: string }> {
  const id = randomUUID();
  return { id, cookie: `${IDENTITY_COOKIE}=${await signIdentity(id, SESSION_SECRET)}` };
}

export function request(path: string, init: RequestInit & { cookie?: string; json?: unknown } = {}): Request {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("cookie", init.cookie);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return new Request(`http://localhost${path}`, { ...init, headers, body });
}

/** Parses an SSE body of UI message chunks. */
export function parseChunks(text: string): UIMessageChunk[] {
  return text
    .split("\n\n")
    .map((event) => event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n"))
    .filter((data) => data && data !== "[DONE]")
    .map((data) => JSON.parse(data) as UIMessageChunk);
}

export function replyText(chunks: UIMessageChunk[]): string {
  return chunks.map((c) => (c.type === "text-delta" ? c.delta : "")).join("");
}

export const params = (id: string) => ({ params: Promise.resolve({ id }) });

/**
 * The reply of a turn as a browser keeps it and sends it back: the stream read
 * by the AI SDK's own reader, then turned into parts by the codec.
 */
export async function replyParts(chunks: UIMessageChunk[]): Promise<Part[]> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) if (!("transient" in chunk && chunk.transient)) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: ChatMessage | undefined;
  for await (const message of readUIMessageStream<ChatMessage>({ stream })) last = message;
  return last ? fromUIParts(last.parts) : [];
}

/** The signatures the server sent in a turn's stream (data-signatures), with each message's place, by message id. */
export function signaturesIn(chunks: UIMessageChunk[]): Map<string, { signature: string; seq: number; parentId?: string | null }> {
  const found = new Map<string, { signature: string; seq: number; parentId?: string | null }>();
  for (const chunk of chunks) {
    if (chunk.type !== "data-signatures") continue;
    const { signatures } = chunk.data as { signatures: { id: string; signature: string; seq: number; parentId?: string | null }[] };
    for (const { id, signature, seq, parentId } of signatures) found.set(id, { signature, seq, ...(parentId !== undefined ? { parentId } : {}) });
  }
  return found;
}

/** A chat route module, as the integration tests import it. */
export interface ChatRoute {
  POST(request: Request, context: undefined): Promise<Response>;
}

/**
 * One POST /api/chat as the browser sends it, read to the end: the stream's
 * chunks and reply text on success, the JSON error body otherwise.
 */
export async function chatTurn(chat: ChatRoute, body: unknown, cookie: string) {
  const response = await chat.POST(request("/api/chat", { method: "POST", cookie, json: body }), undefined);
  const raw = await response.text();
  const chunks = response.ok ? parseChunks(raw) : [];
  return {
    response,
    chunks,
    text: replyText(chunks),
    threadId: response.headers.get("x-thread-id"),
    error: response.ok ? undefined : (JSON.parse(raw) as { error: { code: string; message: string } }),
  };
}

/** An SSE body of UI message chunks with each event's id (`id:`), as a resumed stream sends them. */
export function parseEvents(text: string): { id?: string; chunk: UIMessageChunk }[] {
  return text
    .split("\n\n")
    .map((event) => {
      const lines = event.split("\n");
      const id = lines.find((l) => l.startsWith("id: "))?.slice(4);
      const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      return { id, data };
    })
    .filter(({ data }) => data && data !== "[DONE]")
    .map(({ id, data }) => ({ ...(id === undefined ? {} : { id }), chunk: JSON.parse(data) as UIMessageChunk }));
}

/** Reads a response until `enough` holds of its text; `rest` then reads the rest, resolving with the whole text. */
export async function readSome(response: Response, enough: (text: string) => boolean): Promise<{ text: string; rest: Promise<string> }> {
  const read = await readUntil(response, enough);
  return { text: read.text, rest: readRest(read) };
}

/** Reads a streamed response's text until `enough` says so (or the end); the reader is handed back to read on or cancel. */
export async function readUntil(response: Response, enough: (text: string) => boolean) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let done = false;
  while (!done && !enough(text)) {
    const next = await reader.read();
    done = next.done;
    text += next.value ?? "";
  }
  return { text, done, reader };
}

/** Reads a reply until its text holds `words` words (the model is well under way), as readUntil does. */
export function readWords(response: Response, words: number) {
  return readUntil(response, (text) => replyText(parseChunks(text)).split(" ").length >= words);
}

/** What readUntil read, read on to the end: the whole text. */
export async function readRest({ text, reader }: { text: string; reader: ReadableStreamDefaultReader<string> }): Promise<string> {
  for (let next = await reader.read(); !next.done; next = await reader.read()) text += next.value;
  return text;
}

/** What readUntil read, read on to the end: the whole body's chunks. */
export async function restChunks(read: { text: string; reader: ReadableStreamDefaultReader<string> }): Promise<UIMessageChunk[]> {
  return parseChunks(await readRest(read));
}

/** A stop route module, as the integration tests import it. */
export interface StopRoute {
  POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response>;
}

/**
 * Stops a streamed reply four words in, through POST /api/threads/:id/stop as
 * `cookie`'s owner: the thread, the Stop's answer, and the reply's chunks read
 * to their end.
 */
export async function stopFourWordsIn(response: Response, stop: StopRoute, cookie: string) {
  const threadId = response.headers.get("x-thread-id")!;
  const underway = await readWords(response, 4);
  const stopped = await stop.POST(request(`/api/threads/${threadId}/stop`, { method: "POST", cookie }), params(threadId));
  return { threadId, stopped, chunks: await restChunks(underway) };
}

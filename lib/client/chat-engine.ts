// The chat page's conversation with the server: the thread as the page holds
// it, whether a reply is on its way, and the requests that bring one (send,
// ask again, regenerate, resume a running reply, stop). It reads the UI
// message stream itself (lib/client/reply-message.ts) and keeps its state as
// an external store React subscribes to, so the page loads neither the AI
// SDK's client nor the zod it validates every chunk with.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { UIMessageChunk } from "ai";
import type { ChatMessage } from "@/lib/protocol/chat";
import { toUIParts } from "@/lib/protocol/parts-codec";
import type { FilePart } from "@threadline/history/parts";
import type { DataPart } from "@/lib/client/messages";
import { ReplyMessage } from "@/lib/client/reply-message";

/** ready: nothing asked; submitted: asked, no reply yet; streaming: the reply is coming; error: the last one failed. */
export type ChatStatus = "ready" | "submitted" | "streaming" | "error";

/** How a reply's stream ended, with the reply as it stood. */
export interface ReplyFinish {
  message: ChatMessage;
  /** Stopped on this page (its request aborted). */
  isAbort: boolean;
  isError: boolean;
  /** The connection broke (the browser's fetch failed): the server may well go on. */
  isDisconnect: boolean;
  /** The finish chunk's reason; undefined when the stream ended without one. */
  finishReason: string | undefined;
}

export interface ChatSnapshot {
  messages: ChatMessage[];
  status: ChatStatus;
  error: Error | undefined;
}

export interface ChatEngineOptions {
  messages: ChatMessage[];
  generateId: () => string;
  /** Where a message is sent (POST, JSON). */
  api: string;
  /** The request's body for the thread as it is now (its last message the one to answer). */
  requestBody: (messages: ChatMessage[]) => unknown;
  /** Where the reply being written is read from again (GET: 204 when there is none). */
  resumeUrl: () => string;
  /** Opens that stream another way (shared with other tabs); null when there is nothing to resume. Unset: a GET of resumeUrl. */
  openResume?: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array> | null>;
  /** The reply had ended before it was asked for: nothing to resume. */
  onNothingToResume?: () => void;
  onData?: (part: DataPart) => void;
  onFinish?: (finish: ReplyFinish) => void;
  fetch?: typeof globalThis.fetch;
}

type Trigger = "submit" | "regenerate" | "resume";

interface ActiveRequest {
  controller: AbortController;
  done: Promise<void>;
}

const UNREADABLE = "The reply's stream could not be read.";

export class ChatEngine {
  private snapshot: ChatSnapshot;
  private readonly listeners = new Set<() => void>();
  private active: ActiveRequest | undefined;
  private activeResume: ActiveRequest | undefined;

  constructor(private readonly options: ChatEngineOptions) {
    this.snapshot = { messages: options.messages, status: "ready", error: undefined };
  }

  /** For useSyncExternalStore: the state changes as one object, so a render reads one consistent snapshot. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly getSnapshot = (): ChatSnapshot => this.snapshot;

  get messages(): ChatMessage[] {
    return this.snapshot.messages;
  }
  set messages(messages: ChatMessage[]) {
    this.update({ messages: [...messages] });
  }
  get status(): ChatStatus {
    return this.snapshot.status;
  }
  get error(): Error | undefined {
    return this.snapshot.error;
  }

  /** A new message from the user, answered. */
  readonly sendMessage = async ({ text, files = [], metadata }: { text: string; files?: FilePart[]; metadata?: ChatMessage["metadata"] }): Promise<void> => {
    const message: ChatMessage = { id: this.options.generateId(), role: "user", metadata, parts: toUIParts([{ type: "text", text }, ...files]) };
    this.update({ messages: [...this.messages, message] });
    await this.request("submit");
  };

  /**
   * The reply `messageId` answered anew: the thread up to it is sent again. A
   * user's message is kept and answered; without an id, the last message is
   * (an empty or failed reply taken out first).
   */
  readonly regenerate = async ({ messageId }: { messageId?: string } = {}): Promise<void> => {
    const messages = this.messages;
    const at = messageId == null ? messages.length - 1 : messages.findIndex((m) => m.id === messageId);
    if (at === -1) throw new Error(`message ${messageId} not found`);
    this.update({ messages: messages.slice(0, messages[at].role === "assistant" ? at : at + 1) });
    await this.request("regenerate");
  };

  /** The reply being written now, read from its start. */
  readonly resumeStream = async (): Promise<void> => {
    await this.request("resume");
  };

  /** Cuts the reply's request here (what came so far stays) and waits until it has ended. */
  readonly stop = async (): Promise<void> => {
    const requests = [this.activeResume, this.active];
    for (const request of requests) request?.controller.abort();
    await Promise.all(requests.map((request) => request?.done));
  };

  readonly clearError = (): void => {
    if (this.status === "error") this.update({ status: "ready", error: undefined });
  };

  private update(change: Partial<ChatSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of this.listeners) listener();
  }

  private async request(trigger: Trigger): Promise<void> {
    let finished!: () => void;
    const request: ActiveRequest = { controller: new AbortController(), done: new Promise<void>((resolve) => (finished = resolve)) };
    try {
      await this.run(trigger, request);
    } finally {
      finished();
    }
  }

  private async run(trigger: Trigger, request: ActiveRequest): Promise<void> {
    const { signal } = request.controller;
    // A resume asked for again replaces the one before; only the latest may set the status.
    const current = () => trigger !== "resume" || this.activeResume === request;
    let body: ReadableStream<Uint8Array> | null = null;
    if (trigger === "resume") {
      this.activeResume?.controller.abort();
      this.activeResume = request;
      try {
        body = this.options.openResume ? await this.options.openResume(signal) : await this.open(this.options.resumeUrl(), { method: "GET", signal });
        if (signal.aborted || !current() || body === null) {
          await body?.cancel().catch(() => {});
          if (current()) this.update({ status: "ready" });
          if (body === null && !signal.aborted) this.options.onNothingToResume?.();
          this.endResume(request);
          return;
        }
      } catch (error) {
        if (current()) this.update(signal.aborted || isAbortError(error) ? { status: "ready" } : { status: "error", error: asError(error) });
        this.endResume(request);
        return;
      }
    }

    this.update({ status: "submitted", error: undefined });
    const reply = new ReplyMessage(this.options.generateId(), trigger === "resume");
    this.active = request;
    let isAbort = false;
    let isError = false;
    let isDisconnect = false;
    try {
      body ??= await this.open(this.options.api, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(this.options.requestBody(this.messages)),
        signal,
      });
      if (body === null) throw new Error(UNREADABLE);
      await readChunks(body, signal, (chunk) => {
        const change = reply.apply(chunk, this.options.onData);
        if (change !== "none" && !signal.aborted) this.write(reply.message, change === "changed");
      });
      isAbort = signal.aborted;
      if (current()) this.update({ status: "ready" });
    } catch (error) {
      if (signal.aborted || isAbortError(error)) {
        isAbort = true;
        if (current()) this.update({ status: "ready" });
      } else if (current()) {
        isError = true;
        isDisconnect = error instanceof TypeError && /fetch|network/i.test(error.message);
        this.update({ status: "error", error: asError(error) });
      }
    } finally {
      try {
        this.options.onFinish?.({ message: reply.message, isAbort, isError, isDisconnect, finishReason: reply.finishReason });
      } finally {
        if (this.active === request) this.active = undefined;
        this.endResume(request);
      }
    }
  }

  /** The reply as it stands, in the thread: in its place if it is there, else at the end. */
  private write(message: ChatMessage, streaming: boolean): void {
    const messages = this.messages.slice();
    const at = messages.findLastIndex((m) => m.id === message.id);
    if (at === -1) messages.push(message);
    else messages[at] = message;
    this.update(streaming ? { messages, status: "streaming" } : { messages });
  }

  private endResume(request: ActiveRequest): void {
    if (this.activeResume === request) this.activeResume = undefined;
  }

  private open(url: string, init: RequestInit): Promise<ReadableStream<Uint8Array> | null> {
    return openBody(url, init, this.options.fetch);
  }
}

/** The response's body; null for 204 (nothing to read); a refused request throws the server's answer as the error's message. */
export async function openBody(url: string, init: RequestInit, fetch = globalThis.fetch): Promise<ReadableStream<Uint8Array> | null> {
  const response = await fetch(url, { ...init, credentials: "same-origin" });
  if (response.status === 204) return null;
  if (!response.ok) throw new Error(await response.text());
  if (!response.body) throw new Error("The response body is empty.");
  return response.body;
}

/**
 * Reads a UI message stream (server-sent events, one JSON chunk each) and
 * hands each chunk over as it is complete, however the network splits the
 * bytes. An event that is not a chunk ends the reply with an error.
 */
export async function readChunks(body: ReadableStream<Uint8Array>, signal: AbortSignal, onChunk: (chunk: UIMessageChunk) => void): Promise<void> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      for (const event of events.splice(0)) {
        if (signal.aborted) return;
        if (event.data !== "[DONE]") onChunk(parseChunk(event.data));
      }
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** One event of the stream as a chunk; anything else is an error the chat shows. */
export function parseChunk(data: string): UIMessageChunk {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new Error(UNREADABLE);
  }
  if (!chunk || typeof chunk !== "object" || typeof (chunk as { type?: unknown }).type !== "string") throw new Error(UNREADABLE);
  return chunk as UIMessageChunk;
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

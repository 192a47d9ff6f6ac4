// The browser's view of a thread: AI SDK UIMessages, converted to and from the
// shapes our API speaks. Pure functions only, so they are easy to test.
import type { DataUIPart } from "ai";
import { fromUIParts, uiParentCallId } from "@/lib/protocol/parts-codec";
import type { ChatDataParts, ChatMessage, HistoryItem } from "@/lib/protocol/chat";

export type { ChatMessage } from "@/lib/protocol/chat";
export { toUIMessage as toChatMessage } from "@/lib/protocol/parts-codec";

/** The server's signature for a message and where the message sits in the thread: its seq, and the message it follows. */
export interface SignedPlace {
  signature: string;
  seq: number;
  /** Absent where the server keeps no versions. */
  parentId?: string | null;
}

/** A data part as the chat engine's onData hands it over, as this app's server wrote it (lib/protocol/chat.ts). */
export type DataPart = DataUIPart<ChatDataParts>;

/** The visible text of a message: its own text parts in order. */
export function messageText(message: Pick<ChatMessage, "parts">): string {
  // A sub-agent's text is its answer to the caller, which wrote the reply from it.
  return message.parts.map((part) => (part.type === "text" && uiParentCallId(part) === undefined ? part.text : "")).join("");
}

/**
 * The thread as the API's `history` field wants it: every message with all its
 * parts. Replies carry no timestamp on the wire, so a reply borrows the time of
 * the message before it (the closest we know); empty messages (a reply that
 * produced nothing) are left out. Each carries the signature the server gave
 * it, which the server checks.
 */
export function toHistoryPayload(messages: ChatMessage[], now: Date, signatures?: ReadonlyMap<string, SignedPlace>): HistoryItem[] {
  const history: HistoryItem[] = [];
  let lastKnownTime = now.toISOString();
  for (const message of messages) {
    const parts = fromUIParts(message.parts);
    const createdAt = message.metadata?.createdAt ?? lastKnownTime;
    lastKnownTime = createdAt;
    if (parts.length === 0) continue;
    const signed = signatures?.get(message.id);
    history.push({ id: message.id, role: message.role, parts, createdAt, ...(signed ? signedFields(signed) : {}) });
  }
  return history;
}

/** A signed place as the history item carries it back: the parent only where the server gave one. */
const signedFields = ({ signature, seq, parentId }: SignedPlace) => ({ signature, seq, ...(parentId !== undefined ? { parentId } : {}) });

/**
 * Whether the thread ends with a question and no answer to it: the last
 * message is the user's, or a reply with nothing in it (its turn failed
 * before the model wrote anything).
 */
export function isUnanswered(messages: ChatMessage[]): boolean {
  const last = messages.at(-1);
  if (!last) return false;
  if (last.role === "user") return true;
  return last.role === "assistant" && last.parts.every((part) => part.type.startsWith("data-") || part.type === "step-start");
}

/** The system message a data-compacted part announces: the thread's latest summary. */
export function summaryMessage(data: ChatDataParts["compacted"]): ChatMessage {
  const { id, createdAt, text, throughSeq, summarizedMessages, imported } = data;
  return { id, role: "system", metadata: { createdAt }, parts: [{ type: "data-summary", data: { text, throughSeq, summarizedMessages, ...(imported ? { imported } : {}) } }] };
}

/**
 * `messages` with `message` put where it sits in the thread (before the first
 * message with a later seq), unless it is there already. Messages whose place
 * is unknown are taken to come after it.
 */
export function insertAtSeq(messages: ChatMessage[], message: ChatMessage, seq: number, seqOf: (id: string) => number | undefined): ChatMessage[] {
  if (messages.some((m) => m.id === message.id)) return messages;
  const at = messages.findIndex((m) => (seqOf(m.id) ?? Infinity) > seq);
  return at === -1 ? [...messages, message] : [...messages.slice(0, at), message, ...messages.slice(at)];
}

/**
 * A UUID v4. crypto.randomUUID only exists in secure contexts, and a self-hosted
 * app is often opened over plain http on a LAN address, so fall back to
 * getRandomValues, which exists everywhere.
 */
export function newMessageId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

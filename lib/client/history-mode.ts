// The hybrid history pattern in one place. The client sends its copy of the
// thread only when it can vouch for it; otherwise the server reads the database.
import { limits } from "@/lib/limits";
import { messageText, toHistoryPayload, type SignedPlace } from "@/lib/client/messages";
import { applyHistoryPolicy, type HistoryPolicy } from "@/lib/protocol/history-policy";
import { fromUIParts } from "@/lib/protocol/parts-codec";
import type { ChatMessage, ChatRequest, HistoryItem, HistorySource } from "@/lib/protocol/chat";

export interface ConversationState {
  /** Known once the server has named the thread (data-thread part) or the page was loaded for it. */
  threadId: string | null;
  /**
   * True when this page session built the copy it holds and its last turn ended
   * cleanly. A copy rendered by the server may already be stale (another tab), and
   * one whose turn failed or was cut off on the client may differ from what the
   * server stored; in both cases the database is the better source.
   */
  clientCopyIsTrusted: boolean;
  /** The server's signature for each message it stored, and where it sits, by message id. */
  signatures?: ReadonlyMap<string, SignedPlace>;
  /**
   * The window the server read on the last turn (the widest of its agents'
   * policies): the copy sent is only that, so a request does not grow with the
   * thread. Undefined: the whole thread. (If the next turn needs more, the
   * server reads the database instead.)
   */
  window?: HistoryPolicy;
}

export function chooseHistorySource({ threadId, clientCopyIsTrusted }: ConversationState): HistorySource {
  if (threadId === null) return "new";
  return clientCopyIsTrusted ? "client" : "database";
}

/**
 * The history setting the page's URL asks for (?historyPolicy=&historyLength=),
 * passed on as written: the server validates it, so a bad value is a clear 400
 * rather than silently ignored, and the operator's setting still wins there.
 */
export function historySettingFromUrl(search: string): Pick<ChatRequest, "historyPolicy" | "historyLength"> {
  const params = new URLSearchParams(search);
  const policy = params.get("historyPolicy");
  const length = params.get("historyLength");
  return { ...(policy !== null ? { historyPolicy: policy } : {}), ...(length !== null ? { historyLength: length } : {}) };
}

/** The POST /api/chat body for the last of `messages`, which is the one being sent. */
export function buildChatRequestBody(
  messages: ChatMessage[],
  conversation: ConversationState,
  now: Date = new Date(),
  historySetting: Pick<ChatRequest, "historyPolicy" | "historyLength"> = {},
): ChatRequest {
  const newMessage = messages[messages.length - 1];
  if (!newMessage) throw new Error("There is no message to send.");
  const files = fromUIParts(newMessage.parts).flatMap((part) => (part.type === "file" ? [{ id: part.fileId, name: part.name }] : []));
  const body: ChatRequest = { message: { id: newMessage.id, content: messageText(newMessage), ...(files.length > 0 ? { files } : {}) }, ...historySetting };
  const source = chooseHistorySource(conversation);
  if (source === "new") return body;
  body.threadId = conversation.threadId!;
  if (source === "client") {
    const all = sinceLatestSummary(toHistoryPayload(messages.slice(0, -1), now, conversation.signatures));
    const history = conversation.window ? windowOf(all, conversation.window) : all;
    // A thread too long for one request body is left to the database rather than refused.
    if (fitsInRequest(history)) body.history = history;
  }
  return body;
}

function fitsInRequest(history: HistoryItem[]): boolean {
  if (history.length > limits.maxHistoryItems) return false;
  return new TextEncoder().encode(JSON.stringify(history)).length <= limits.maxHistoryBytes;
}

/**
 * The end of the copy that holds the earlier messages a policy reads, counting
 * the message being sent as the last user message. Always an unbroken end of
 * the copy (a summary inside it stays): the server takes only a copy without gaps.
 */
export function windowOf(history: HistoryItem[], policy: HistoryPolicy): HistoryItem[] {
  if (policy.policy === "all") return history;
  const sending = { role: "user" } as const;
  const read = applyHistoryPolicy<{ role: string }>([...history, sending], policy).slice(0, -1);
  const first = read.findIndex((m) => m.role === "user" || m.role === "assistant");
  return first === -1 ? [] : history.slice(history.indexOf(read[first] as HistoryItem));
}

/**
 * The copy from the first message the latest summary does not stand for: the
 * model reads the summary instead of what came before, so the server needs none of it.
 */
export function sinceLatestSummary(history: HistoryItem[]): HistoryItem[] {
  let fromSeq = 0;
  for (const item of history) {
    for (const part of item.parts) if (part.type === "system-event") fromSeq = Math.max(fromSeq, part.throughSeq + 1);
  }
  return fromSeq === 0 ? history : history.filter((item) => item.seq !== undefined && item.seq >= fromSeq);
}

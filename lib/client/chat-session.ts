// What the chat page knows about its thread that is not drawn: the transport
// reads it when it builds a request, and the stream's data parts write it the
// moment they arrive, so it lives outside React's state (which would only
// catch up at the next render). Also what the reply being streamed has said
// that matters only when it ends: that the server stopped it, a new summary.
import type { HistoryMessage } from "@/lib/protocol/threads";
import type { ChatDataParts, ChatMessage, ChatRequest } from "@/lib/protocol/chat";
import { buildChatRequestBody, historySettingFromUrl, type ConversationState } from "@/lib/client/history-mode";
import type { DataPart, SignedPlace } from "@/lib/client/messages";

/** How a reply's stream ended, as the chat reports it. */
export interface ReplyEnding {
  role: ChatMessage["role"];
  isAbort: boolean;
  isError: boolean;
  isDisconnect: boolean;
}

export class ChatSession {
  private readonly signatures: Map<string, SignedPlace>;
  private readonly conversation: ConversationState;
  private serverSaidStopped = false;
  // A summary written since this page's last turn: it joins the thread (and the copy) when the reply ends.
  private newSummary: ChatDataParts["compacted"] | null = null;
  // The message the next request makes a new version of (regenerate: the reply; edit: the user's message).
  private nextReplaces: string | null = null;
  /** The model the picker holds: each request names it (unset: the server's default answers). */
  model: string | undefined;
  /** A new chat started as a temporary one: it neither reads nor writes memory (only its first request says so). */
  temporary = false;

  /** `threadId` null for a brand-new chat; `history` the messages the page was rendered with. */
  constructor(threadId: string | null, history: HistoryMessage[]) {
    this.signatures = new Map();
    this.remember(history);
    this.conversation = { threadId, clientCopyIsTrusted: threadId === null, signatures: this.signatures };
  }

  get threadId(): string | null {
    return this.conversation.threadId;
  }

  /** Where a message sits in the thread, when the server has signed it. */
  readonly seqOf = (id: string): number | undefined => this.signatures.get(id)?.seq;

  /** Keeps the signatures of messages the server sent (a page of earlier messages). */
  remember(messages: HistoryMessage[]): void {
    for (const m of messages) if (m.signature) this.signatures.set(m.id, { signature: m.signature, seq: m.seq, parentId: m.parentId });
  }

  /**
   * The thread was drawn again from the server (another version selected):
   * keeps the new messages' signatures, and the next request leaves the
   * history to the database, as it does for a page the server rendered.
   */
  redrawn(messages: HistoryMessage[]): void {
    this.remember(messages);
    this.conversation.clientCopyIsTrusted = false;
  }

  /** The next request (only that one) makes a new version of `messageId`: a regenerated reply or an edited message. */
  replaceNext(messageId: string): void {
    this.nextReplaces = messageId;
  }

  /** The POST /api/chat body for the last of `messages`; `search` is the page URL's query (a history setting). */
  requestBody(messages: ChatMessage[], search: string, now: Date = new Date()): ChatRequest {
    const body = buildChatRequestBody(messages, this.conversation, now, historySettingFromUrl(search));
    // A thread this message starts says it came from the chat page (another client of the API is "api").
    if (body.threadId === undefined) body.source = "web";
    if (body.threadId === undefined && this.temporary) body.temporary = true;
    if (this.model !== undefined) body.model = this.model;
    if (this.nextReplaces !== null) {
      body.replaces = this.nextReplaces;
      this.nextReplaces = null;
    }
    return body;
  }

  /** Takes in what a data part says; returns the thread's id when this part is the first to name it. */
  receive(part: DataPart): string | null {
    switch (part.type) {
      case "data-thread": {
        const known = this.conversation.threadId === part.data.threadId;
        this.conversation.threadId = part.data.threadId;
        return known ? null : part.data.threadId;
      }
      case "data-history":
        // What the next message's copy must hold: the widest window any agent read.
        this.conversation.window = part.data.window === null ? undefined : { policy: "lastN", length: part.data.window };
        break;
      case "data-status":
        this.serverSaidStopped = true;
        break;
      case "data-signatures":
        for (const { id, signature, seq, parentId } of part.data.signatures) this.signatures.set(id, { signature, seq, parentId });
        break;
      case "data-compacted":
        this.signatures.set(part.data.id, { signature: part.data.signature, seq: part.data.seq, parentId: part.data.parentId });
        this.newSummary = part.data;
        break;
    }
    return null;
  }

  /**
   * The reply's stream has ended: whether the reply was stopped (by the server
   * or cut off here) and the summary to add to the thread, if one was written.
   * Only a turn that ended cleanly leaves a copy the next request may send.
   */
  replyEnded({ role, isAbort, isError, isDisconnect }: ReplyEnding): { stopped: boolean; summary: ChatDataParts["compacted"] | null } {
    const stopped = (this.serverSaidStopped || isAbort) && role === "assistant";
    const summary = this.newSummary;
    this.serverSaidStopped = false;
    this.newSummary = null;
    this.conversation.clientCopyIsTrusted = !isAbort && !isError && !isDisconnect;
    return { stopped, summary };
  }
}

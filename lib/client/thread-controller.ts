// One chat page's thread, framework-free: the conversation with the server
// (the chat engine, the signatures and copy it sends, Stop), the reply being
// written elsewhere (resume, another tab's turn followed), its versions, its
// earlier pages, and what the page says about the turn. Everything the page
// draws is one snapshot behind subscribe/getSnapshot, as the AI SDK's
// AbstractChat is to useChat: React renders it through useSyncExternalStore
// (components/chat/useThreadChat.ts), and the rules here run without React.
import type { HistoryMessage, MessageVersions } from "@/lib/protocol/threads";
import type { PendingTurn } from "@/lib/protocol/chat";
import { AppError } from "@threadline/history/errors";
import * as api from "@/lib/client/api";
import { afterDecision } from "@/lib/client/after-decision";
import { describeChatError, isBudgetRefusal } from "@/lib/client/chat-error";
import { catchUpWith } from "@/lib/client/live/catch-up";
import { initialFollowState, transition, type FollowEffect, type FollowEvent } from "@/lib/client/live/follow-machine";
import { followSharedResume } from "@/lib/client/live/shared-resume";
import { ChatEngine, openBody, type ReplyFinish } from "@/lib/client/chat-engine";
import { ChatSession } from "@/lib/client/chat-session";
import { errorMessage } from "@/lib/client/error-message";
import { insertAtSeq, newMessageId, summaryMessage, toChatMessage, type ChatMessage, type DataPart } from "@/lib/client/messages";
import { ReplyStop } from "@/lib/client/reply-stop";
import { fetchDocuments } from "@/lib/client/documents";
import { AttachmentTray } from "@/lib/client/attachments";
import { initialModel, keepLastChoice, readLastChoice, type ModelChoice } from "@/lib/client/model-choice";
import type { ModelOption } from "@/lib/protocol/models";
import { ThreadWings } from "@/lib/client/thread-wings";
import { withoutRetriedReply } from "@/lib/client/retried-parts";
import type { ThreadListPort } from "@/lib/client/thread-list-port";
import {
  continuingTurn,
  initialThreadChatState,
  retryOf,
  threadChatReducer,
  turnPhase,
  unansweredTurn,
  withOlderMessages,
  type ThreadChatEvent,
  type ThreadChatState,
  type TurnPhase,
} from "@/lib/client/thread-chat-state";
import { indexVersions, messagesBeforeEdit, regenerableReplyId, type VersionIndex } from "@/lib/client/versions";
import type { UploadedFile } from "@/lib/protocol/files";
import { filesOf } from "@threadline/history/parts-plain";
import type { FilePart } from "@threadline/history/parts";
import { fromUIParts } from "@/lib/protocol/parts-codec";
import { MemoriesUsed, memoriesGivenIn, type UsedMemory } from "@/lib/client/memories-used";

/** An upload as the message's part names it. */
const asFilePart = ({ id, name, mediaType, size }: UploadedFile): FilePart => ({ type: "file", fileId: id, name, mediaType, size });

/** ATTACHMENT_MAX_MB's default, in bytes, when the page was not told. */
const DEFAULT_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Which of a message's version buttons was pressed: it keeps the focus on the version it brings. */
export type VersionControl = "previous" | "next";

/** What the controller needs of the page it runs in. */
export interface ThreadPage {
  /** The page URL's query (a history setting, debug): sent with each message. */
  search: () => string;
  /** The thread was named by its first reply: the URL follows it, without a new page. */
  showThread: (threadId: string) => void;
  /** Another page (a fork). */
  navigate: (path: string) => void;
}

export interface ThreadControllerOptions {
  /** null for a brand-new chat; the server names the thread on the first reply. */
  threadId: string | null;
  /** The thread as the server rendered it (empty for a new chat). */
  initialHistory: HistoryMessage[];
  /** A turn of this thread that has not finished well, when the page was rendered. */
  pendingTurn?: PendingTurn | null;
  /** Where the earlier messages begin, when the page holds only the latest (null: it holds the start). */
  olderCursor?: string | null;
  /** The "2 / 3" of each message of the thread's path that has other versions, when the page was rendered. */
  versions?: MessageVersions[];
  /** The models on offer, as the server rendered the page. */
  models?: ModelOption[];
  /** The model the thread's latest reply was written with (null: none yet, or a new chat). */
  threadModel?: string | null;
  /** The most one attached file may be (ATTACHMENT_MAX_MB, in bytes). */
  maxUploadBytes?: number;
  /** The thread is a temporary chat (it neither reads nor writes memory). */
  temporary?: boolean;
  threadList: ThreadListPort;
  page: ThreadPage;
}

/**
 * Everything the page draws of its thread, as one value that changes as a
 * whole: the one shape of the thread's view, from the controller to the
 * message list (what the turn says besides the messages is the reducer's,
 * lib/client/thread-chat-state.ts).
 */
export interface ThreadSnapshot extends Pick<ThreadChatState, "notice" | "stoppedReplyIds" | "sendCount" | "stopping" | "history" | "older"> {
  /** The thread as shown (a retried step's failed attempts left out). */
  messages: ChatMessage[];
  phase: TurnPhase;
  /** A reply is on its way (submitted or streaming). */
  busy: boolean;
  /** The thread's id, once the server has named it. */
  threadId: string | null;
  /** Why the last turn did not end well, in words. */
  errorMessage: string | null;
  /** What Retry does, when there is something to retry. */
  retry: "ask again" | "send again" | null;
  /** The "2 / 3" of each message that has other versions. */
  versions: VersionIndex;
  /** Another version is being fetched. */
  switching: boolean;
  /** A reply is on its way or the versions are switching: the messages' controls wait. */
  locked: boolean;
  /** The reply Regenerate answers anew, if the thread ends with one. */
  regenerableReplyId: string | null;
  /** A switch or fork that failed, until the next one or the next message. */
  actionError: string | null;
  /** Once another version is shown: the version button to focus on it. */
  versionFocus: { messageId: string; control: VersionControl } | null;
  /** The model each message is sent with (the picker's), and why it is not the thread's own, if it is not. */
  model: ModelChoice | undefined;
  /** A temporary chat: it neither reads nor writes memory. A new chat is one once the person says so, before its first message. */
  temporary: boolean;
  /** By reply id: the memories each reply that was given some was given. */
  memoriesUsed: ReadonlyMap<string, UsedMemory[]>;
}

export class ThreadController {
  /** The thread's documents and feedback, read as the page shows the thread and its path settles. */
  readonly wings = new ThreadWings({ fetchDocuments, threadFeedback: api.threadFeedback, putFeedback: api.putFeedback });
  /** The files the next message carries, uploaded as they are added. */
  readonly attachments: AttachmentTray;
  private readonly session: ChatSession;
  private readonly memories: MemoriesUsed;
  private readonly stopper: ReplyStop;
  private readonly chat: ChatEngine;
  private readonly listeners = new Set<() => void>();
  private readonly unanswered: PendingTurn["state"] | null;
  /** The page was rendered while a reply that waited for a decision goes on. */
  private readonly continuing: boolean;
  private state: ThreadChatState;
  private versions: VersionIndex;
  /** Only the latest read or switch of the versions may write them. */
  private versionsTicket = 0;
  private switching = false;
  private actionError: string | null = null;
  private versionFocus: ThreadSnapshot["versionFocus"] = null;
  private model: ModelChoice | undefined;
  private snapshot: ThreadSnapshot;
  /** Following, resuming and catching up with the thread (lib/client/live/follow-machine.ts). */
  private live = initialFollowState;
  /** The reply being streamed is a new version (regenerate, edit): the positions are read again when it ends. */
  private newVersion = false;
  /** The user's message whose turn ended on this page without a reply (lib/client/live/catch-up.ts). */
  private endedHere: string | null;
  private stopNews: (() => void) | undefined;

  constructor(private readonly options: ThreadControllerOptions) {
    const { threadId, initialHistory, pendingTurn = null, olderCursor = null, versions = [] } = options;
    this.unanswered = unansweredTurn(initialHistory, pendingTurn);
    this.continuing = continuingTurn(initialHistory, pendingTurn);
    this.state = initialThreadChatState({ olderCursor, interrupted: this.unanswered === "interrupted" });
    this.endedHere = this.unanswered === "interrupted" ? (initialHistory.at(-1)?.id ?? null) : null;
    this.versions = indexVersions(versions);
    this.session = new ChatSession(threadId, initialHistory);
    this.attachments = new AttachmentTray({ maxBytes: options.maxUploadBytes ?? DEFAULT_UPLOAD_BYTES });
    this.model = initialModel(options.models ?? [], options.threadModel, null);
    this.session.model = this.model?.id;
    this.session.temporary = options.temporary === true;
    this.memories = new MemoriesUsed(() => api.listMemories(), () => this.changed());
    this.stopper = new ReplyStop();
    this.chat = new ChatEngine({
      messages: initialHistory.map(toChatMessage),
      generateId: newMessageId,
      api: "/api/chat",
      requestBody: (messages) => this.session.requestBody(messages, options.page.search()),
      resumeUrl: () => `/api/threads/${this.session.threadId}/stream`,
      // One request for every tab that shows the thread (lib/client/live/shared-resume.ts).
      openResume: (signal) => {
        const url = `/api/threads/${this.session.threadId}/stream`;
        return followSharedResume(String(this.session.threadId), signal, ({ signal, lastEventId }) =>
          openBody(url, { method: "GET", signal, headers: lastEventId ? { "last-event-id": lastEventId } : {} }),
        );
      },
      // The reply ended between the page's rendering and the resume: the thread holds it now.
      onNothingToResume: () => void this.step({ type: "nothing-to-resume" }),
      onData: (part) => this.receive(part),
      onFinish: (finish) => this.replyEnded(finish),
    });
    this.chat.subscribe(() => this.changed());
    this.snapshot = this.build();
    this.memories.served(initialHistory);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly getSnapshot = (): ThreadSnapshot => this.snapshot;

  /**
   * A page shows the thread: its news is followed, and a reply being written
   * when the page was rendered is resumed. The function returned is called
   * when the page no longer shows it: its stream is dropped (the server
   * finishes the turn on its own) and nothing it does writes the URL.
   */
  readonly attach = (): (() => void) => {
    this.step({ type: "shown" });
    // A thread without a model of its own starts from this browser's last choice, which only the browser can read.
    if (!this.options.threadModel) this.useModel(initialModel(this.options.models ?? [], null, readLastChoice()));
    this.showWings();
    this.memories.show();
    this.followNews();
    if (this.unanswered === "running" || this.continuing) this.step({ type: "pending-turn" });
    return () => {
      this.step({ type: "hidden" });
      this.wings.hide();
      this.stopNews?.();
      this.stopNews = undefined;
      this.stopper.ended();
      void this.chat.stop();
    };
  };

  /** A new message, with the files uploaded for it (each the user's, as POST /api/files stored it). */
  readonly send = (text: string, files: UploadedFile[] = []): void =>
    this.ask(() => this.chat.sendMessage({ text, files: files.map(asFilePart), metadata: { createdAt: new Date().toISOString() } }));

  /** The unanswered message sent again (its own id): the server waits for a turn still running, or answers it anew. */
  readonly askAgain = (): void => this.ask(() => this.chat.regenerate());

  /** After a failed turn: the unanswered message asked again, or the last message's text sent anew after a reply that broke off. */
  readonly retry = (): void => {
    const retry = retryOf(this.snapshot.messages);
    if (retry === null) return;
    if ("askAgain" in retry) this.askAgain();
    else this.ask(() => this.chat.sendMessage({ text: retry.send, files: retry.files, metadata: { createdAt: new Date().toISOString() } }));
  };

  /** The model each message is sent with from now on (the picker's, "Regenerate with"): this browser keeps it as its last choice. */
  readonly chooseModel = (id: string): void => {
    this.useModel({ id });
    keepLastChoice(id);
  };

  /**
   * A new chat as a temporary one, or not: said by its first message, which
   * makes the thread. Once the thread is named it is what it is.
   */
  readonly setTemporary = (temporary: boolean): void => {
    if (this.session.threadId !== null || this.chat.messages.length > 0) return;
    this.session.temporary = temporary;
    this.changed();
  };

  /** The last reply answered anew: the server stores it beside the one it replaces. */
  readonly regenerate = (replyId: string): void => {
    if (!this.chat.messages.some((m) => m.id === replyId && m.role === "assistant")) return;
    this.session.replaceNext(replyId);
    this.newVersion = true;
    this.ask(() => this.chat.regenerate({ messageId: replyId }));
  };

  /** A user's message with new words: the thread goes on from the messages before it; the server keeps the old words as another version. */
  readonly edit = (messageId: string, text: string): void => {
    const before = messagesBeforeEdit(this.chat.messages, messageId);
    if (!before) return;
    // The new words carry the files the message carried.
    const edited = this.chat.messages.find((m) => m.id === messageId);
    const files = edited ? filesOf({ parts: fromUIParts(edited.parts) }) : [];
    this.chat.messages = before;
    this.session.replaceNext(messageId);
    this.newVersion = true;
    this.ask(() => this.chat.sendMessage({ text, files, metadata: { createdAt: new Date().toISOString() } }));
  };

  readonly stop = (): void => {
    this.dispatch({ type: "stopping" });
    void this.stopper.stop(this.session.threadId, () => this.chat.stop());
  };

  /**
   * The user's decision on a tool call that waits for it. Once the server
   * has it and the reply's every call is decided, the reply goes on as a turn
   * of its own, streamed again from its start: the waiting reply makes way
   * and the stream is followed. Rejects with why the decision was not taken;
   * one made already elsewhere is said under the thread, which catches up.
   */
  readonly decide = async (approvalId: string, decision: api.ApprovalDecision): Promise<void> => {
    const id = this.session.threadId;
    if (!id) throw new AppError("not_found:thread", "This thread is not saved yet.");
    // Its news can come before its answer: the continuation is followed once, from here (catchUp leaves it).
    this.step({ type: "deciding" });
    try {
      await api.decideApproval(id, approvalId, decision);
    } catch (error) {
      if (error instanceof AppError && error.code === "conflict:already_decided") {
        // Said under the thread, where it outlasts the card: catching up redraws the call as it was decided.
        this.actionError = error.message;
        this.changed();
        void this.catchUp();
      }
      throw error;
    } finally {
      this.step({ type: "decided" });
    }
    if (id !== this.session.threadId) return;
    const next = afterDecision(this.chat.messages, approvalId, decision);
    this.chat.messages = next.messages;
    if (next.follow) this.step({ type: "running-turn" });
  };

  /** Another version of a message: the server's answer is the thread along the new path, drawn as it is. */
  readonly switchVersion = async (messageId: string, control: VersionControl): Promise<void> => {
    const id = this.session.threadId;
    if (!id || this.switching || this.busy()) return;
    this.switching = true;
    this.actionError = null;
    this.changed();
    const ticket = ++this.versionsTicket;
    try {
      const answer = await api.selectVersion(id, messageId);
      this.chat.clearError();
      this.redraw(answer);
      if (ticket === this.versionsTicket) this.versions = indexVersions(answer.versions);
      // The focus stays on the version buttons, though the message under them is another one.
      this.versionFocus = { messageId, control };
    } catch (error) {
      this.actionError = errorMessage(error, "Could not show that version.");
    } finally {
      this.switching = false;
      this.changed();
    }
  };

  readonly versionFocused = (): void => {
    this.versionFocus = null;
    this.changed();
  };

  /** A new thread that holds this one up to a message: the list shows it and the page opens it. */
  readonly fork = async (messageId: string): Promise<void> => {
    const id = this.session.threadId;
    if (!id) return;
    this.actionError = null;
    this.changed();
    try {
      const forked = await api.forkThread(id, messageId);
      await this.options.threadList.refresh();
      this.options.page.navigate(`/c/${forked.id}`);
    } catch (error) {
      this.actionError = errorMessage(error, "Could not fork the thread.");
      this.changed();
    }
  };

  /** Earlier messages, a page at a time: they join the copy too, signed like the rest, before all of it. */
  readonly loadOlder = async (): Promise<void> => {
    const threadId = this.session.threadId;
    const { cursor, loading } = this.state.older;
    if (!threadId || !cursor || loading) return;
    this.dispatch({ type: "older-loading" });
    try {
      const page = await api.olderMessages(threadId, cursor);
      this.session.remember(page.messages);
      this.memories.served(page.messages);
      this.chat.messages = withOlderMessages(this.chat.messages, page.messages);
      this.dispatch({ type: "older-loaded", cursor: page.nextCursor });
    } catch (error) {
      this.dispatch({ type: "older-failed", error: errorMessage(error, "Could not load earlier messages.") });
    }
  };

  /** The page is opened at a message (#message-<id>) older than what it holds: pages load until it is there. */
  readonly reveal = (messageId: string | null): void => {
    const { cursor, loading, error } = this.state.older;
    if (!messageId || !cursor || loading || error) return;
    if (this.snapshot.messages.some((m) => m.id === messageId)) return;
    void this.loadOlder();
  };

  /**
   * Another tab or device of this identity changed the thread (sent a
   * message, a reply ended there, a version was chosen): a page not writing
   * a reply of its own draws the thread as the server holds it and follows
   * the reply being written, as a reload would. News that comes while it
   * catches up is caught up with once it is done.
   */
  readonly catchUp = async (): Promise<void> => {
    if (!this.step({ type: "news" }).includes("read-latest")) return;
    try {
      do {
        const id = this.session.threadId;
        if (!id || this.busy()) return void this.step({ type: "catch-up-deferred" });
        const latest = await api.latestMessages(id);
        if (this.busy() || id !== this.session.threadId) return void this.step({ type: "catch-up-deferred" });
        const { redraw, follow, continuation } = catchUpWith(this.chat.messages, latest.messages, this.endedHere);
        if (redraw) {
          this.redraw(latest);
          void this.refreshVersions();
        }
        if (follow) this.step({ type: "running-turn" });
        else if (continuation) this.step({ type: "maybe-continuation" });
      } while (this.step({ type: "catch-up-passed" }).includes("read-latest"));
    } catch {
      // The page stays as it is; the next news, or a reload, catches up.
      this.step({ type: "catch-up-failed" });
    }
  };

  private useModel(model: ModelChoice | undefined): void {
    this.model = model;
    this.session.model = model?.id;
    this.changed();
  }

  private busy(): boolean {
    return this.live.stream.kind === "following" || this.chat.status === "submitted" || this.chat.status === "streaming";
  }

  private ask(request: () => Promise<void>): void {
    this.stopper.ended();
    this.actionError = null;
    this.dispatch({ type: "asked" });
    void request();
  }

  /** One rule of following, resuming and catching up applied: the controller does what it leads to. */
  private step(event: FollowEvent): FollowEffect[] {
    const { state, effects } = transition(this.live, event);
    this.live = state;
    for (const effect of effects) {
      // A resumed reply is shown once, from its start, as a reply sent from this page is.
      if (effect === "resume") this.ask(() => this.follow());
      // A waiting reply's possible continuation: most often none runs, and nothing on the page moves.
      else if (effect === "follow-quietly") void this.follow();
      else if (effect === "catch-up") void this.catchUp();
      // "redraw-thread" after a reply's end waits for the rest of its ending (replyEnded).
      else if (effect === "redraw-thread" && event.type === "nothing-to-resume") void this.redrawThread();
    }
    return effects;
  }

  private async follow(): Promise<void> {
    try {
      await this.chat.resumeStream();
    } finally {
      this.step({ type: "follow-ended" });
    }
  }

  private followNews(): void {
    const id = this.session.threadId;
    if (this.live.page.kind !== "shown" || id === null || this.stopNews) return;
    this.stopNews = this.options.threadList.onThreadNews(id, () => void this.catchUp());
  }

  private receive(part: DataPart): void {
    const given = memoriesGivenIn(part);
    // It comes right after the reply's start, which put the reply at the thread's end.
    const replyId = given && this.chat.messages.findLast((m) => m.role === "assistant")?.id;
    if (given && replyId) this.memories.given(replyId, given);
    const named = this.session.receive(part);
    if (named && this.live.page.kind === "shown") {
      this.options.page.showThread(named);
      void this.options.threadList.refresh();
      this.followNews();
    }
    this.dispatch({ type: "data", part });
  }

  private replyEnded({ message, isAbort, isError, isDisconnect, finishReason }: ReplyFinish): void {
    this.stopper.ended();
    this.endedHere = this.chat.messages.findLast((m) => m.role === "user")?.id ?? null;
    // A resumed reply that ended without its end (its server went away, or could not keep its stream): the thread says how it ended.
    const withoutEnd = !isAbort && !isError && finishReason === undefined;
    const redrawResumed = this.step({ type: "reply-ended", withoutEnd }).includes("redraw-thread");
    const { stopped, summary } = this.session.replyEnded({ role: message.role, isAbort, isError, isDisconnect });
    if (summary) this.chat.messages = insertAtSeq(this.chat.messages, summaryMessage(summary), summary.seq, this.session.seqOf);
    this.dispatch({ type: "reply-ended", replyId: message.id, stopped });
    // Once the reply has ended the thread keeps it as shown, so the next request's copy holds no failed attempt either.
    if (this.state.retried.replyId !== null) {
      this.chat.messages = withoutRetriedReply(this.chat.messages, this.state.retried);
      this.dispatch({ type: "retries-settled" });
    }
    const newVersion = this.newVersion;
    this.newVersion = false;
    if (this.live.page.kind !== "shown") return;
    void this.options.threadList.refresh();
    if (newVersion) void (isError || isDisconnect ? this.redrawThread() : this.refreshVersions());
    else if (redrawResumed) void this.redrawThread();
  }

  /** The thread drawn again as the server holds it: its newest page, signed, and where the earlier messages begin. */
  private redraw(latest: { messages: HistoryMessage[]; nextCursor: string | null }): void {
    this.session.redrawn(latest.messages);
    this.memories.served(latest.messages);
    this.chat.messages = latest.messages.map(toChatMessage);
    this.dispatch({ type: "redrawn", olderCursor: latest.nextCursor });
  }

  /**
   * A new version the server refused, or whose reply failed: the page had
   * already taken the old reply (or message) out, and the server kept it, so
   * the thread is drawn again as the server holds it, the error still shown.
   */
  private async redrawThread(): Promise<void> {
    const id = this.session.threadId;
    if (!id) return;
    const ticket = ++this.versionsTicket;
    try {
      const [page, list] = await Promise.all([api.latestMessages(id), api.threadVersions(id)]);
      this.redraw(page);
      if (ticket === this.versionsTicket) this.versions = indexVersions(list);
      this.changed();
    } catch {
      // The page stays as it is; a reload shows the thread as the server holds it.
    }
  }

  /** The "2 / 3" of each message, read again when a new version's reply ends. */
  private async refreshVersions(): Promise<void> {
    const id = this.session.threadId;
    if (!id) return;
    const ticket = ++this.versionsTicket;
    try {
      const list = await api.threadVersions(id);
      if (ticket !== this.versionsTicket) return;
      this.versions = indexVersions(list);
      this.changed();
    } catch {
      // The positions shown stay as they were; the next read or switch corrects them.
    }
  }

  private dispatch(event: ThreadChatEvent): void {
    this.state = threadChatReducer(this.state, event);
    this.changed();
  }

  private changed(): void {
    this.snapshot = this.build();
    for (const listener of this.listeners) listener();
    this.showWings();
  }

  /** The wings follow the thread the page shows, and its path once settled (no reply on its way). */
  private showWings(): void {
    if (this.live.page.kind !== "shown") return;
    const { threadId, busy, messages } = this.snapshot;
    this.wings.show(threadId, busy ? null : messages.map((m) => m.id).join(","));
  }

  private build(): ThreadSnapshot {
    const { messages: chatMessages, status, error } = this.chat.getSnapshot();
    const state = this.state;
    const messages = withoutRetriedReply(chatMessages, state.retried);
    const phase = turnPhase(status);
    // A turn the budget refused offers no Retry: it would be refused again until the budget renews.
    const retry = error && isBudgetRefusal(error) ? null : retryOf(messages);
    return {
      messages,
      phase,
      busy: phase !== "idle",
      threadId: this.session.threadId,
      notice: phase === "idle" ? null : state.notice,
      stoppedReplyIds: state.stoppedReplyIds,
      errorMessage: error ? describeChatError(error) : state.interrupted ? "The reply was interrupted." : null,
      retry: retry === null ? null : "askAgain" in retry ? "ask again" : "send again",
      sendCount: state.sendCount,
      stopping: state.stopping,
      history: state.history,
      older: state.older,
      versions: this.versions,
      switching: this.switching,
      locked: phase !== "idle" || this.switching,
      regenerableReplyId: regenerableReplyId(messages),
      actionError: this.actionError,
      versionFocus: this.versionFocus,
      model: this.model,
      temporary: this.session.temporary,
      memoriesUsed: this.memories.snapshot,
    };
  }
}

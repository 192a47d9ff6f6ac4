import { notFoundThread, threadBusy } from "@threadline/history/errors";
import { userMessage } from "@threadline/history/parts";
import type {
  LeaseRenewal,
  NewSummary,
  OpenedTurn,
  Reply,
  StoredMessage,
  SummaryMessage,
  SummaryStore,
  ThreadScope,
  TitleStore,
  TurnClaim,
  TurnHistory,
  TurnRef,
  TurnStore,
  UserMessage,
} from "@threadline/history/contract";

interface MemoryThread {
  owner: string;
  /** The active path, in seq order; summaries included. */
  messages: StoredMessage[];
  nextSeq: number;
  title?: string;
  titledByModel: boolean;
}

interface MemoryTurn {
  threadId: string;
  turnId: string;
  status: "running" | "done" | "failed";
  stopRequested: boolean;
}

const CREATED_AT = "2026-01-01T00:00:00.000Z";

/**
 * The turn store in memory, for the turn's unit tests: the rules the Postgres
 * adapter keeps in database functions (a thread per owner, one turn per client
 * message id, one running turn per thread, the reply on the path, summaries
 * stored only after the latest), kept here in maps, and every call recorded.
 * A new version replaces the message on the path rather than keeping both.
 */
export class MemoryHistory implements TurnHistory {
  readonly calls: { hook: string; args: Record<string, unknown> }[] = [];
  readonly threads = new Map<string, MemoryThread>();
  /** One per owner and client message id. */
  readonly claims = new Map<string, MemoryTurn>();
  readonly turns: TurnStore;
  readonly summaries: SummaryStore;
  readonly titles: TitleStore;

  constructor() {
    const store = this;
    this.turns = {
      openTurn: async (ctx) => store.openTurn(ctx),
      claimTurn: async (ctx) => store.record("claimTurn", ctx, () => store.claim(ctx)),
      renewTurn: async (ctx): Promise<LeaseRenewal> =>
        store.record("renewTurn", ctx, () => {
          const turn = store.claims.get(key(ctx.owner, ctx.messageId));
          return { held: turn?.turnId === ctx.turnId && turn.status === "running", stopRequested: turn?.stopRequested ?? false };
        }),
      requestStop: async (ctx) =>
        store.record("requestStop", ctx, () => ({
          turns: [...store.claims.values()]
            .filter((t) => t.threadId === ctx.threadId && t.status === "running" && store.threads.get(t.threadId)?.owner === ctx.owner)
            .map((t) => ((t.stopRequested = true), t.turnId)),
          // No reply waits here: the memory store keeps no approvals.
          settled: [],
        })),
      stopRequested: async (ctx) => store.record("stopRequested", ctx, () => store.claims.get(key(ctx.owner, ctx.messageId))?.stopRequested ?? false),
      finishTurn: async (ctx) =>
        store.record("finishTurn", ctx, () => {
          const turn = store.claims.get(key(ctx.owner, ctx.messageId));
          if (!turn || turn.turnId !== ctx.turnId) return;
          // A message whose reply is on the path stays answered.
          turn.status = ctx.status === "failed" && store.replyOf(turn.threadId, ctx.messageId) ? "done" : ctx.status;
        }),
      replyTo: async (ctx) =>
        store.record("replyTo", ctx, () => {
          const messages = store.owned(ctx).messages;
          return { message: messages.find((m) => m.id === ctx.messageId) ?? null, reply: store.replyOf(ctx.threadId, ctx.messageId) };
        }),
    };
    this.summaries = {
      latest: async (ctx) => store.record("summaries.latest", ctx, () => store.latestSummary(ctx.threadId, ctx.owner)),
      append: async (ctx) => store.record("summaries.append", ctx, () => store.appendSummary(ctx)),
    };
    this.titles = {
      storeModelTitle: async (ctx) =>
        store.record("titles.storeModelTitle", ctx, () => {
          const thread = store.threads.get(ctx.threadId);
          if (!thread || thread.owner !== ctx.owner || ctx.title === null || (thread.titledByModel && !ctx.overModel)) return false;
          thread.title = ctx.title;
          thread.titledByModel = true;
          return true;
        }),
    };
  }

  /** The hooks called, in order. */
  hooks(): string[] {
    return this.calls.map((c) => c.hook);
  }

  /** A thread holding these messages already, as an earlier conversation left it. */
  seed(owner: string, threadId: string, messages: StoredMessage[] = []): void {
    const nextSeq = messages.reduce((max, m) => Math.max(max, m.seq + m.parts.length), 1);
    this.threads.set(threadId, { owner, messages: [...messages], nextSeq, titledByModel: false });
  }

  async get(ctx: ThreadScope & { threadId: string; lastUserMessages?: number; fromSeq?: number; untilSeq?: number }): Promise<StoredMessage[]> {
    return this.record("get", ctx, () => {
      const thread = this.threads.get(ctx.threadId);
      if (!thread || thread.owner !== ctx.owner) return [];
      const read = thread.messages.filter((m) => m.role !== "system" && m.seq >= (ctx.fromSeq ?? 0) && (ctx.untilSeq === undefined || m.seq <= ctx.untilSeq));
      if (ctx.lastUserMessages === undefined) return read;
      const users = read.filter((m) => m.role === "user");
      const first = users.at(-ctx.lastUserMessages);
      return first ? read.filter((m) => m.seq >= first.seq) : read;
    });
  }

  async appendUserMessage(ctx: ThreadScope & { threadId: string; turnId: string; message: UserMessage }): Promise<{ duplicate: boolean; seq?: number }> {
    return this.record("appendUserMessage", ctx, () => {
      const thread = this.owned(ctx);
      const stored = thread.messages.find((m) => m.id === ctx.message.id);
      if (stored) return { duplicate: this.claims.get(key(ctx.owner, ctx.message.id))?.turnId !== ctx.turnId, seq: stored.seq };
      return { duplicate: false, seq: this.push(thread, { ...userMessage(ctx.message.id, ctx.message.content), status: "complete" }).seq };
    });
  }

  async appendResults(ctx: ThreadScope & { threadId: string; reply: Reply; turn?: TurnRef; replaces?: string }) {
    return this.record("appendResults", ctx, () => {
      const thread = this.owned(ctx);
      if (ctx.replaces !== undefined) thread.messages = thread.messages.filter((m) => m.id !== ctx.replaces);
      const stored = this.push(thread, ctx.reply);
      if (ctx.turn) {
        const turn = this.claims.get(key(ctx.owner, ctx.turn.messageId));
        if (turn?.turnId === ctx.turn.turnId) turn.status = "done";
      }
      return { seq: stored.seq, parentId: stored.parentId };
    });
  }

  private openTurn(
    ctx: ThreadScope & TurnRef & { threadId: string; message: UserMessage; leaseMs: number | null; replaces?: string },
  ): Promise<OpenedTurn> {
    return this.record("openTurn", ctx, () => {
      let thread = this.threads.get(ctx.threadId);
      if (thread && thread.owner !== ctx.owner) throw notFoundThread();
      const created = !thread;
      if (!thread) {
        thread = { owner: ctx.owner, messages: [], nextSeq: 1, titledByModel: false };
        this.threads.set(ctx.threadId, thread);
      }
      const messages = thread.messages.filter((m) => m.role !== "system").length;
      const summary = this.latestSummary(ctx.threadId, ctx.owner) ?? undefined;
      const replaced = ctx.replaces === undefined ? undefined : thread.messages.find((m) => m.id === ctx.replaces);
      if (ctx.replaces !== undefined && !replaced) throw notFoundThread();
      // A regenerate answers the user's message before the reply it replaces, as stored.
      const answered = replaced?.role === "assistant" ? thread.messages[thread.messages.indexOf(replaced) - 1] : undefined;
      if (replaced?.role === "user") thread.messages = thread.messages.slice(0, thread.messages.indexOf(replaced));
      const claim = this.claim({ ...ctx, messageId: answered?.id ?? ctx.messageId });
      if (!claim.claimed) return { threadId: ctx.threadId, created, messages, summary, claim };
      const stored = answered ?? thread.messages.find((m) => m.id === ctx.message.id) ?? this.push(thread, { ...userMessage(ctx.message.id, ctx.message.content), status: "complete" });
      const index = thread.messages.indexOf(stored);
      const message = answered ? { id: answered.id, role: "user" as const, content: answered.parts.map((p) => (p.type === "text" ? p.text : "")).join("") } : undefined;
      return { threadId: ctx.threadId, created, messages, summary, claim, userSeq: stored.seq, message, userParentId: index > 0 ? thread.messages[index - 1].id : null };
    });
  }

  private claim(ctx: ThreadScope & TurnRef & { threadId: string }): TurnClaim {
    const id = key(ctx.owner, ctx.messageId);
    const turn = this.claims.get(id);
    if (turn && turn.turnId !== ctx.turnId && turn.status !== "failed") return { claimed: false, threadId: turn.threadId, running: turn.status === "running" };
    const busy = [...this.claims.entries()].some(([other, t]) => other !== id && t.threadId === ctx.threadId && t.status === "running");
    if (busy) throw threadBusy();
    this.claims.set(id, { threadId: ctx.threadId, turnId: ctx.turnId, status: "running", stopRequested: false });
    return { claimed: true };
  }

  private latestSummary(threadId: string, owner: string): SummaryMessage | null {
    const thread = this.threads.get(threadId);
    if (!thread || thread.owner !== owner) return null;
    return (thread.messages.filter((m) => m.role === "system").at(-1) as SummaryMessage | undefined) ?? null;
  }

  private appendSummary(ctx: ThreadScope & { threadId: string; summary: NewSummary; after: number | null }): { seq: number } | null {
    const thread = this.threads.get(ctx.threadId);
    if (!thread || thread.owner !== ctx.owner) return null;
    if ((this.latestSummary(ctx.threadId, ctx.owner)?.seq ?? null) !== ctx.after) return null;
    const { id, text, throughSeq, summarizedMessages } = ctx.summary;
    return { seq: this.push(thread, { id, role: "system", status: "complete", parts: [{ type: "system-event", event: "compaction", text, throughSeq, summarizedMessages }] }).seq };
  }

  private replyOf(threadId: string, messageId: string): StoredMessage | null {
    const messages = this.threads.get(threadId)?.messages ?? [];
    const at = messages.findIndex((m) => m.id === messageId);
    const next = at < 0 ? undefined : messages.slice(at + 1).find((m) => m.role !== "system");
    return next?.role === "assistant" ? next : null;
  }

  private owned(ctx: ThreadScope & { threadId: string }): MemoryThread {
    const thread = this.threads.get(ctx.threadId);
    if (!thread || thread.owner !== ctx.owner) throw notFoundThread();
    return thread;
  }

  private push(thread: MemoryThread, message: Omit<StoredMessage, "seq" | "createdAt" | "parentId">): StoredMessage {
    const stored: StoredMessage = { ...message, seq: thread.nextSeq, parentId: thread.messages.at(-1)?.id ?? null, createdAt: CREATED_AT };
    thread.nextSeq += Math.max(1, message.parts.length);
    thread.messages.push(stored);
    return stored;
  }

  private record<T>(hook: string, args: object, work: () => T): Promise<T> {
    this.calls.push({ hook, args: args as Record<string, unknown> });
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

const key = (owner: string, messageId: string) => `${owner}\u0000${messageId}`;

// The history adapter contract. The turn runner (lib/agent/turn/turn.ts) calls
// the four hooks of the lifecycle in this order:
//
// | hook              | when                                                        | must |
// |-------------------|-------------------------------------------------------------|------|
// | createThread      | start of every turn                                         | no threadId: create one; a threadId: upsert it |
// | appendUserMessage | once the thread exists, before any agent runs               | store the message at once, idempotent on its id |
// | get               | client-given thread, no client history, not created now     | the history in order; unknown thread → [] |
// | appendResults     | after the run (also after Stop: what was produced)          | only this run's reply, in one transaction |
//
// Turns (`turns`): `openTurn` does createThread, the claim and
// appendUserMessage in one, and makes a client's message id unique per owner
// (one thread, one turn, one model call however often it is sent);
// `renewTurn` keeps a running turn's lease (and says whether a Stop was asked
// for it); `finishTurn` records the outcome; `replyTo` gives back a message and
// its stored reply, for a duplicate; `requestStop` records a Stop and tells the
// process running the turn. A thread runs one turn at a time: `openTurn`
// refuses another message while one runs, and `claimTurn` a duplicate whose
// turn died meanwhile. The Postgres adapter keeps the rules (claim, liveness,
// storing the message once, one turn per thread, Stop) in database functions
// (db/functions/threadline_open_turn.sql and the functions it calls).
//
// Versions (`versions`): a thread's messages form a tree (a
// regenerated reply or an edited message is a sibling of the one it
// replaces), and every read above follows the thread's active path only.
// `branch` starts a new version, `select` switches to one, `versions` reads
// the "2 / 3" of each message on the path. The Postgres adapter keeps these
// rules in database functions (db/functions/threadline_branch.sql,
// threadline_select_version.sql, threadline_open_version.sql).
//
// Compaction (lib/agent/compaction.ts) adds `summaries`, used when the thread
// has grown past its threshold: `latest` reads the latest summary and `append`
// stores a new one.
//
// Titles (lib/agent/title.ts) add `titles`: after a thread's first reply the
// model names the thread, and `storeModelTitle` keeps that name unless the
// user has renamed the thread.
import type { ModelUsage } from "./usage";
import type { MessageVersions, ReplyStatus, StoredMessage } from "./messages";
import type { ThreadOrigin } from "./thread-source";
import type { ApprovalOutcome, SystemEventPart, ThreadMessage } from "./parts";

import type { UserMessage } from "./parts";

export type { Role, ThreadMessage, UserMessage } from "./parts";
export type { MessageVersions, ReplyStatus, StoredMessage } from "./messages";

/**
 * Told of a change to an owner's threads that this process made: a turn
 * started or ended, a title stored, a thread made, renamed, read or deleted
 * (lib/threads/repository.ts). The database announces each to every
 * process (NOTIFY); lib/app.ts passes the news on itself only where no
 * listener hears the database.
 */
export type ThreadsChanged = (owner: string, threadId: string) => void;

/** What one run produced: one assistant message, its parts in the order they were produced. */
export interface Reply extends ThreadMessage {
  role: "assistant";
  status: ReplyStatus;
  /** The model that wrote it (`provider:model`); the thread then names it as its model. */
  model?: string;
  /** What this run's model calls spent: stored with the reply, in the same statement, each call once. */
  usage?: ModelUsage[];
}

/** A thread's compaction summary: a system message whose one part says what it stands for. */
export type SummaryMessage = StoredMessage & { role: "system"; parts: [SystemEventPart] };

/** A summary to store: the text and the messages (up to `throughSeq`) it stands for. */
export type NewSummary = Pick<SystemEventPart, "text" | "throughSeq" | "summarizedMessages"> & { id: string };

/** Whether this turn may answer the message, or another turn has or is answering it (in `threadId`). */
export type TurnClaim = { claimed: true } | { claimed: false; threadId: string; running: boolean };

/** A turn and the user's message it answers (its client id). */
export interface TurnRef {
  messageId: string;
  turnId: string;
}

/** What a Stop reached: the running turns told to stop, or else the waiting replies it ended. */
export interface StopRequest {
  turns: string[];
  settled: string[];
}

/** What opening a turn found and did. */
export interface OpenedTurn {
  threadId: string;
  created: boolean;
  /** User and assistant messages the thread held before this turn. */
  messages: number;
  summary?: SummaryMessage;
  claim: TurnClaim;
  /** The user's message's seq, when this turn claimed it (stored now, or found stored by an interrupted turn). */
  userSeq?: number;
  /** A regenerate: the user's message as the thread holds it, which the turn answers again. */
  message?: UserMessage;
  /** The message the user's message follows (null: it starts the thread), when the adapter keeps versions. */
  userParentId?: string | null;
  /** A reply that waited for the user's approval, ended by this message first (its calls skipped: the user moved on). */
  settledReply?: string;
}

export interface ThreadScope {
  /** The identity the turn runs for; adapters must never touch another owner's thread. */
  owner: string;
}

/**
 * The four hooks of the lifecycle: all a turn needs (lib/agent/turn/turn.ts). An
 * adapter stores a thread and its messages with them, and nothing more.
 */
export interface LifecycleHooks {
  /** No threadId: create a thread. A threadId: upsert it. Must refuse another owner's thread. */
  /** `origin`: where a thread made now comes from (packages/history/src/thread-source.ts); unset, the chat page. A kept thread keeps its own. */
  createThread(ctx: ThreadScope & { threadId?: string; origin?: ThreadOrigin }): Promise<{
    threadId: string;
    created: boolean;
    /** User and assistant messages it held before this turn. */
    messages?: number;
    /** Its latest compaction summary, if it has one. */
    summary?: SummaryMessage;
  }>;
  /**
   * The thread's user and assistant messages in order (system messages are
   * left out: the turn adds the latest summary itself); an unknown thread
   * gives [], never an error. With `lastUserMessages`, only the last that
   * many user messages and everything after each (what a lastN history policy
   * reads); with `fromSeq`, only messages from that seq on (what follows a summary);
   * with `untilSeq`, only up to that seq (a regenerate reads up to the message it answers).
   */
  get(ctx: ThreadScope & { threadId: string; lastUserMessages?: number; fromSeq?: number; untilSeq?: number }): Promise<StoredMessage[]>;
  /**
   * Store the user's message at once; the same message id twice stores it once.
   * `duplicate` is true only when another turn stored it: a retry of the same
   * turn (same turnId) finds its own row and goes on.
   */
  appendUserMessage(ctx: ThreadScope & { threadId: string; turnId: string; message: UserMessage }): Promise<{ duplicate: boolean; seq?: number }>;
  /**
   * Store only this run's reply (every part of it), in one transaction; `seq`
   * is its first part's. With `turn`, the same statement marks that turn done.
   * With `replaces` (a regenerate, for an adapter with versions), the reply is
   * a new version of that reply and takes its place on the active path.
   */
  appendResults(
    ctx: ThreadScope & { threadId: string; reply: Reply; turn?: TurnRef; replaces?: string },
  ): Promise<{ seq?: number; parentId?: string | null } | void>;
}

/**
 * One turn per client message id (unique per owner): a message sent twice
 * lands in one thread and is answered once. With them, the turn opens with
 * `openTurn` alone.
 */
export interface TurnStore {
  /**
   * createThread (an upsert of the given id), claimTurn and appendUserMessage
   * at once, in one round trip where the adapter can: how a turn opens.
   * With `replaces` (an adapter with versions), the turn is a new version of
   * a message on the active path: the id of a reply (a regenerate: `message`
   * names the user's message it answers, which is claimed again and read back
   * as stored) or of a user's message (an edit: `message` is the new one,
   * stored as its sibling). Refused with an AppError, nothing written, when
   * that message is not there, no longer on the path, not the reply to
   * `message`, or while another turn of the thread runs. A new message too
   * is refused (AppError "conflict:turn_in_progress") while another
   * message's turn of the thread runs, whatever process runs it.
   */
  openTurn(ctx: ThreadScope & TurnRef & { threadId: string; message: UserMessage; leaseMs: number | null; replaces?: string; origin?: ThreadOrigin }): Promise<OpenedTurn>;
  /**
   * Claims the answering of the user's message for this turn, asked again
   * while another turn answers it. Granted when no turn has it, when it is
   * this turn's already (a retried step), when the last one failed, or when
   * the last one's runner died (its process is gone, or its lease ran out).
   * Refused (AppError "conflict:turn_in_progress") when it would start
   * answering the message while another message's turn of the thread runs.
   * `leaseMs` null: held until finished (a durable run finishes what it
   * starts).
   */
  claimTurn(ctx: ThreadScope & TurnRef & { threadId: string; leaseMs: number | null }): Promise<TurnClaim>;
  /** Extends a running turn's lease; `held` false when the turn is no longer this one's. */
  renewTurn(ctx: ThreadScope & TurnRef & { leaseMs: number }): Promise<LeaseRenewal>;
  /**
   * Records a Stop for the thread's running turn and tells every process (the
   * one running it aborts it), whichever process asks: the turn ids told.
   * With no turn running, a reply that waits for the user's approval is
   * ended instead (its calls stopped): `settled`, its id. Both empty:
   * nothing to stop.
   */
  requestStop(ctx: ThreadScope & { threadId: string }): Promise<StopRequest>;
  /**
   * Whether a Stop was recorded for this turn: a turn that holds no lease (a
   * durable run) asks before each step Stop can end, since a Stop announced
   * between two steps reached no process.
   */
  stopRequested(ctx: ThreadScope & TurnRef): Promise<boolean>;
  /** Records how the turn ended; a message whose reply is on the path stays answered (a regenerate that failed). */
  finishTurn(ctx: ThreadScope & TurnRef & { status: "done" | "failed" }): Promise<void>;
  /** The user's message and the reply stored after it (null while there is none), for a duplicate. */
  replyTo(ctx: ThreadScope & { threadId: string; messageId: string }): Promise<{ message: StoredMessage | null; reply: StoredMessage | null }>;
}

/** A lease renewed (`held`), and whether a Stop was asked for the turn meanwhile. */
export interface LeaseRenewal {
  held: boolean;
  stopRequested: boolean;
}

/** Compaction (lib/agent/compaction.ts): reads and stores a thread's summaries. */
export interface SummaryStore {
  /** The thread's latest summary; null when it has none or is not the owner's. */
  latest(ctx: ThreadScope & { threadId: string }): Promise<SummaryMessage | null>;
  /**
   * Store a summary as the thread's latest, only if the latest is still the
   * one it was written after (`after`: its seq, or null for none), so two
   * compactions of one thread never both land, and only while what it stands
   * for (up to its throughSeq) is still on the thread's active path. Never
   * changes other messages.
   * Null when it stored nothing (another got there first, the path changed, or no such thread).
   */
  /** `usage`: what writing it spent, kept whether or not the summary is. */
  append(ctx: ThreadScope & { threadId: string; summary: NewSummary; after: number | null; usage?: ModelUsage }): Promise<{ seq: number } | null>;
}


/**
 * A thread's messages as a tree. Each message follows a parent (the message
 * before it on its path); the active path is one version at each level, and
 * it is what every read of the thread returns. New messages follow the end
 * of the active path. Nothing here deletes a message.
 */
export interface VersionStore {
  /**
   * Cuts the active path just above `messageId`, so that the next message
   * stored follows its parent as its new sibling (a regenerate, an edit).
   * `branched` false: the message is not on the active path (another branch
   * at it came first), nothing changed. Null: no such message in the owner's
   * thread, nothing changed.
   */
  branch(ctx: ThreadScope & { threadId: string; messageId: string }): Promise<{ branched: boolean; parentId: string | null } | null>;
  /**
   * Puts `messageId` on the active path, with the versions chosen below it
   * before. False: no such message in the owner's thread, nothing changed.
   */
  select(ctx: ThreadScope & { threadId: string; messageId: string }): Promise<boolean>;
  /** The messages of the active path that have more than one version; [] for an unknown thread. */
  versions(ctx: ThreadScope & { threadId: string }): Promise<MessageVersions[]>;
}

/** The model's titles (lib/agent/title.ts). */
export interface TitleStore {
  /**
   * Store the model's title for the thread, only over the title its first
   * message gave it: never over a rename (one that races it wins), never a
   * second time unless `overModel` (an edit of the first message) lets it
   * replace the model's earlier title. False when it stored nothing.
   */
  storeModelTitle(ctx: ThreadScope & { threadId: string; title: string | null; overModel?: boolean; usage?: ModelUsage }): Promise<boolean>;
}

/** How a decision went: the outcome that stands, and whether this decision made it (false: an earlier one had). */
export interface ApprovalDecision {
  /** The reply holding the call. */
  messageId: string;
  outcome: ApprovalOutcome;
  reason?: string;
  decidedNow: boolean;
  /** How many calls of the reply still wait for a decision, after this one made it: at none, the reply goes on. */
  pending?: number;
}

/** A decided call of a reply that goes on: the approval, the call it is for, and how it was decided. */
export interface DecidedCall {
  id: string;
  toolCallId: string;
  outcome: ApprovalOutcome;
  reason?: string;
  /** The deciding page's IANA time zone, when it said. */
  timeZone?: string;
}

/**
 * The claim on going on with a reply whose calls are all decided: the user's
 * message it answers (whose turn claim it takes, with its lease) and its
 * decided calls; or why not: it no longer waits, a call is undecided, or
 * another turn of the thread runs.
 */
export type ContinuationClaim =
  /** `round`: which time the message's reply goes on (1 the first), counted across servers and runtimes. */
  | { claimed: true; messageId: string; decisions: DecidedCall[]; round: number }
  | { claimed: false; refused: "not_waiting" | "pending" | "busy" };

/**
 * Tool calls that asked for the user's approval (packages/history/src/parts.ts):
 * storing a reply whose call asks records its approval as pending, and the
 * first decision stands.
 */
export interface ApprovalStore {
  /**
   * Records the owner's decision on an approval of the thread. An approval
   * asked for longer ago than `timeoutMs` is recorded as expired instead.
   * Null: no such approval in the owner's thread.
   */
  decide(
    ctx: ThreadScope & { threadId: string; approvalId: string; approved: boolean; reason?: string; timeoutMs: number; timeZone?: string },
  ): Promise<ApprovalDecision | null>;
  /**
   * Claims going on with the waiting reply `replyId` once its calls are all
   * decided (those older than `timeoutMs` expire here), as a turn `turnId`
   * of the user's message it answers, under a lease as `claimTurn`'s. Null:
   * no such thread of the owner's.
   */
  claimContinuation(
    ctx: ThreadScope & { threadId: string; replyId: string; turnId: string; leaseMs: number | null; timeoutMs: number },
  ): Promise<ContinuationClaim | null>;
  /**
   * Replies, of any owner, that could go on now and no turn goes on with:
   * every call decided (or undecided longer than `timeoutMs`), and nothing
   * running in the thread; a turn that went on with one died, or its server
   * did before it began.
   */
  dueReplies(ctx: { timeoutMs: number; limit: number }): Promise<(ThreadScope & { threadId: string; replyId: string })[]>;
}

/**
 * Everything a turn reads and writes (lib/agent/turn/turn.ts): the turn's
 * claim and lease, the history it reads, the user's message and the reply it
 * stores, the summaries compaction keeps and the model's title. A turn opens
 * with `turns.openTurn`, which creates the thread, so `createThread` is not
 * among them. The Postgres adapter implements it; the unit tests use an
 * in-memory one.
 */
export interface TurnHistory extends Pick<LifecycleHooks, "get" | "appendUserMessage" | "appendResults"> {
  turns: TurnStore;
  summaries: SummaryStore;
  titles: TitleStore;
}

/** A history adapter: the lifecycle's four hooks, what a turn needs, and a thread's versions. */
export interface HistoryConfig extends LifecycleHooks, TurnHistory {
  versions: VersionStore;
  approvals: ApprovalStore;
}

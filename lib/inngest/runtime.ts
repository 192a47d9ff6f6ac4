import "server-only";
import { randomUUID } from "node:crypto";
import type { Inngest } from "inngest";
import { dataChunk, dataPartSchemas, WAITING_NOTICE } from "@/lib/protocol/chat";
import { CHAT_TURN_EVENT, REPLY_DECIDED_EVENT, type ReplyDecidedEventData, type ChatTurnEventData, type TurnInput } from "@/lib/protocol/turn-events";
import { threadIdForFirstMessage } from "@/lib/agent/turn/lifecycle";
import type { SessionSecret } from "@/lib/auth/secret";
import { authorizeTurn } from "@/lib/auth/turn-authorization";
import { AppError } from "@threadline/history/errors";
import { TurnChannel } from "@/lib/runtime/turn-channel";
import type { TurnStops } from "@/lib/runtime/turn-stops";
import type { StartedTurn, TurnRuntime } from "@/lib/runtime/types";
import { turnChannel } from "./channels";
import { RunFeed, type Message } from "./run-feed";
import { ensureWebSocket } from "./websocket";

export interface InngestRuntimeOptions {
  /** How long to wait for the run to announce its thread, unless it waits for another turn of the thread. */
  startTimeoutMs: number;
  /** How long the run may stay silent once it has started streaming. */
  idleTimeoutMs: number;
  /** How long a run may take to start before the route asks whether it waits behind another turn. */
  queueCheckMs?: number;
}

/** The turn running in an owner's thread now, or null (lib/live/postgres-progress.ts). */
export type RunningTurnOf = (owner: string, threadId: string) => Promise<string | null>;

const DEFAULT_OPTIONS: InngestRuntimeOptions = { startTimeoutMs: 120_000, idleTimeoutMs: 120_000 };
const DEFAULT_QUEUE_CHECK_MS = 300;
/** How long a decision's answer waits for the run that asked to go on, and how often it looks. */
const GO_ON_WAIT_MS = 5_000;
const GO_ON_POLL_MS = 50;
/** Within a proxy's idle timeout (commonly 30–60 s): a waiting message's notice is sent again this often. */
const WAITING_NOTICE_MS = 20_000;


/**
 * Inngest caps an event's size (256 KiB on its smaller plans). A client copy
 * too large to travel in the event is left out: the function then reads the
 * same history from the database, and the response says so.
 */
const MAX_EVENT_HISTORY_BYTES = 200 * 1024;

function fitsInEvent(history: unknown[] | undefined): boolean {
  return history === undefined || Buffer.byteLength(JSON.stringify(history)) <= MAX_EVENT_HISTORY_BYTES;
}

/**
 * Sends each turn to Inngest as an event and streams the run's realtime
 * messages back. The subscription is opened before the event is sent, since
 * a subscriber only sees what is published after it connects.
 */
export class InngestRuntime implements TurnRuntime {
  readonly name = "inngest";

  constructor(
    private readonly client: Inngest,
    /** Stop, from any process: the chat-turn function's model step is aborted wherever it runs. */
    private readonly stops: TurnStops,
    /** Signs the event, so the function runs only turns this app sent. */
    private readonly sessionSecret: SessionSecret,
    private readonly options: InngestRuntimeOptions = DEFAULT_OPTIONS,
    /** Tells a message that waits for another turn of its thread (Inngest runs one at a time) from a run slow to start. */
    private readonly runningTurnOf?: RunningTurnOf,
  ) {}

  async start(request: Omit<TurnInput, "turnId">): Promise<StartedTurn> {
    await ensureWebSocket();
    const turnId = randomUUID();
    const inbox = new TurnChannel<Message>();
    const subscription = await this.client.realtime
      .subscribe({
        channel: turnChannel(turnId),
        topics: ["chunks", "refused"],
        onMessage: (message) => inbox.publish({ topic: message.topic, data: message.data } as Message),
        onError: (error) => console.error(`[turn ${turnId}] realtime subscription error:`, error),
      })
      .catch((error) => {
        throw new AppError("unavailable:inngest", "Inngest realtime is not reachable. Please try again.", { cause: error });
      });

    const input: TurnInput = { ...request, turnId, clientHistory: fitsInEvent(request.clientHistory) ? request.clientHistory : undefined };
    const data: ChatTurnEventData = {
      ...input,
      // A first message's thread is named after it: the same message sent twice queues behind itself.
      concurrencyKey: request.threadId ?? threadIdForFirstMessage(request.owner, request.message.id),
      authorization: authorizeTurn(input, await this.sessionSecret()),
    };
    const feed = new RunFeed(inbox.readable().getReader(), () => subscription.close());
    try {
      await this.client.send({ name: CHAT_TURN_EVENT, data }).catch((error) => {
        throw new AppError("unavailable:inngest", "Inngest is not reachable. Please try again.", { cause: error });
      });
      const { startTimeoutMs, idleTimeoutMs, queueCheckMs = DEFAULT_QUEUE_CHECK_MS } = this.options;
      // A message that waits for the thread's running turn is answered at once, and says that it waits.
      const waitsBehind = this.waitsBehind(request.owner, request.threadId, turnId);
      const early = waitsBehind ? await feed.first(Math.min(queueCheckMs, startTimeoutMs), { quiet: true }) : undefined;
      if (early === undefined && waitsBehind && request.threadId && (await waitsBehind())) {
        const notice = dataChunk("notice", { text: WAITING_NOTICE });
        return { threadId: request.threadId, stream: feed.stream(notice, idleTimeoutMs, { notice, waitsBehind, everyMs: WAITING_NOTICE_MS }) };
      }
      const first = await feed.announcement(early ?? (await feed.first(startTimeoutMs)), startTimeoutMs);
      if (first.type !== "data-thread") {
        // Logged with what came instead: a rare race (seen once, under load, with one message sent to two servers) left no trace.
        console.error(`[turn ${turnId}] the run's first chunk was ${JSON.stringify(first).slice(0, 300)}, not the thread's announcement`);
        throw new AppError("internal:inngest", "The turn did not announce its thread.");
      }
      const { threadId, historySource } = dataPartSchemas.thread.parse(first.data);
      return { threadId, historySource, stream: feed.stream(first, idleTimeoutMs) };
    } catch (error) {
      feed.close();
      throw error;
    }
  }

  /**
   * The chat-turn run that asked waits for this event (lib/inngest/durable-turn.ts),
   * and goes on in its own steps. Resolves once that turn runs (or after a
   * few seconds), so the client's GET /api/threads/:id/stream finds it.
   */
  async goOn(request: { owner: string; threadId: string; replyId: string }): Promise<boolean> {
    await this.wake({ owner: request.owner, threadId: request.threadId, replyId: request.replyId });
    const runningTurnOf = this.runningTurnOf;
    if (!runningTurnOf) return true;
    for (const until = Date.now() + GO_ON_WAIT_MS; Date.now() < until; ) {
      if ((await runningTurnOf(request.owner, request.threadId).catch(() => null)) !== null) return true;
      await new Promise((resolve) => setTimeout(resolve, GO_ON_POLL_MS));
    }
    return false;
  }

  private async wake(data: ReplyDecidedEventData): Promise<void> {
    await this.client.send({ name: REPLY_DECIDED_EVENT, data });
  }

  async stop(owner: string, threadId: string): Promise<boolean> {
    const { stopped, settled } = await this.stops.stop(owner, threadId);
    // The run that waits for the reply's decisions ends once it sees the reply no longer waits.
    await Promise.all(settled.map((replyId) => this.wake({ owner, threadId, replyId })));
    return stopped;
  }

  /** Whether another turn than this one runs in the thread now; undefined when that cannot be asked (a new thread). */
  private waitsBehind(owner: string, threadId: string | undefined, turnId: string): (() => Promise<boolean>) | undefined {
    const runningTurnOf = this.runningTurnOf;
    if (!runningTurnOf || !threadId) return undefined;
    return async () => {
      const running = await runningTurnOf(owner, threadId).catch(() => null);
      return running !== null && running !== turnId;
    };
  }
}

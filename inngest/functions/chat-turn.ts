import "server-only";
import { NonRetriableError, StepError } from "inngest";
import { defaultNetwork } from "@/lib/agent/default-network";
import type { Network } from "@/lib/agent/network";
import { runTurn, type StepRunner } from "@/lib/agent/turn";
import { getSessionSecret } from "@/lib/auth/secret";
import { historySigner } from "@/lib/auth/history-signature";
import { isAuthorizedTurn } from "@/lib/auth/turn-authorization";
import { AppError } from "@/lib/errors";
import type { HistoryConfig } from "@/lib/history/types";
import { activeTurns } from "@/lib/runtime/active-turns";
import { historyAdapter } from "@/lib/threads/service";
import { batchedPublish } from "@/lib/inngest/batched-publish";
import { turnChannel } from "@/lib/inngest/channels";
import {
  CHAT_TURN_EVENT,
  THREAD_COMPACT_EVENT,
  type ChatTurnEventData,
  type ThreadCompactEventData,
  type TurnChunkMessage,
  type TurnRefusal,
} from "@/lib/protocol/turn-events";
import { inngest } from "../client";

const RETRIES = 3;

/** Where the function's output goes. Production publishes to Inngest realtime; tests record. */
export interface TurnPublisher {
  /** Chunks in order, as one realtime message. */
  chunks(turnId: string, messages: TurnChunkMessage[]): Promise<void>;
  refused(turnId: string, refusal: TurnRefusal): Promise<void>;
}

export const realtimePublisher: TurnPublisher = {
  // Not step.realtime.publish: deltas must stream while the model step runs,
  // and the turn already wraps every once-only chunk in a step of its own.
  chunks: async (turnId, messages) => void (await inngest.realtime.publish(turnChannel(turnId).chunks, { messages })),
  refused: async (turnId, refusal) => void (await inngest.realtime.publish(turnChannel(turnId).refused, refusal)),
};

const isRefusal = (error: unknown): error is AppError => error instanceof AppError && error.kind !== "internal";

/** What a step hands back: its work's value, or the refusal it has already announced. */
type StepOutcome<T> = { value: T } | { refused: TurnRefusal };

/** A step refused the turn and told the route; the run ends without a retry or a second announcement. */
class RefusalAnnounced extends Error {
  constructor(readonly refusal: TurnRefusal) {
    super(refusal.message);
    this.name = "RefusalAnnounced";
  }
}

export function createChatTurnFunction(deps: {
  publisher: TurnPublisher;
  history?: () => HistoryConfig;
  network?: () => Network;
}) {
  const history = deps.history ?? historyAdapter;
  const network = deps.network ?? defaultNetwork;
  return inngest.createFunction(
    {
      id: "chat-turn",
      triggers: [{ event: CHAT_TURN_EVENT }],
      concurrency: [{ key: "event.data.concurrencyKey", limit: 1 }],
      retries: RETRIES,
    },
    async ({ event, step, attempt, maxAttempts }) => {
      const data = event.data as ChatTurnEventData;
      // Before any step: a forged event must neither write nor read anything.
      const secret = await getSessionSecret();
      if (!isAuthorizedTurn(data, data.authorization, secret)) {
        throw new NonRetriableError("Refused a turn event that this app did not sign.");
      }
      const controller = new AbortController();
      // One realtime request at a time; what the turn writes meanwhile goes in the next one.
      const output = batchedPublish<TurnChunkMessage>((messages) => deps.publisher.chunks(data.turnId, messages));
      const refuse = (error: AppError) =>
        deps.publisher.refused(data.turnId, { code: error.code, message: error.message });
      let threadId: string | undefined;
      // A refusal (not found, duplicate) will not change on a retry. The step
      // tells the route at once and returns the refusal as its (memoized)
      // value; the run then ends without retrying.
      const runStep: StepRunner = async (id, work, options) => {
        const outcome = (await step.run(id, async () => {
          // Stop can reach a model call only while it runs, here in this process.
          const stoppable = options?.stoppable === true && threadId !== undefined;
          if (stoppable) activeTurns().track(threadId!, data.owner, controller);
          try {
            const value = await work();
            // A step is done once what it wrote has been published.
            await output.flush();
            return { value };
          } catch (error) {
            await output.flush().catch(() => {});
            if (!isRefusal(error)) throw error;
            await refuse(error);
            return { refused: { code: error.code, message: error.message } };
          } finally {
            if (stoppable) activeTurns().release(threadId!, controller);
          }
        })) as StepOutcome<Awaited<ReturnType<typeof work>>>;
        if ("refused" in outcome) throw new RefusalAnnounced(outcome.refused);
        return outcome.value;
      };
      try {
        const outcome = await runTurn(
          {
            owner: data.owner,
            turnId: data.turnId,
            threadId: data.threadId,
            message: data.message,
            clientHistory: data.clientHistory,
            historyPolicy: data.historyPolicy,
          },
          {
            history: history(),
            // Inngest retries the failed step durably; retrying inside it as well would multiply the wait.
            network: { ...network(), maxRetries: 0 },
            publish: (chunk, origin) => output.push({ attempt, step: origin?.step, chunk }),
            step: runStep,
            signal: controller.signal,
            signer: historySigner(secret, data.owner),
            retriesSteps: true,
            onReady: (ready) => {
              threadId = ready.threadId;
            },
          },
        );
        await output.flush();
        if (outcome.compact) {
          const compaction: ThreadCompactEventData = { owner: data.owner, threadId: outcome.threadId };
          await step.sendEvent("request-compaction", { name: THREAD_COMPACT_EVENT, data: compaction });
        }
        return {
          threadId: outcome.threadId,
          historySource: outcome.historySource,
          status: outcome.status,
          replyId: outcome.reply?.id ?? null,
        };
      } catch (error) {
        if (error instanceof RefusalAnnounced) throw new NonRetriableError(error.message, { cause: error });
        if (isRefusal(error)) {
          await step.run("announce-refusal", () => refuse(error));
          throw new NonRetriableError(error.message, { cause: error });
        }
        // The run is about to fail for good (a step out of retries, or the last
        // attempt): end the client's stream now rather than let it time out.
        if (error instanceof StepError || attempt + 1 >= (maxAttempts ?? RETRIES + 1)) {
          await output.flush().catch(() => {});
          await deps.publisher
            .chunks(data.turnId, [{ attempt, chunk: { type: "error", errorText: "The server failed while answering. Please try again." } }])
            .catch(() => {});
          // The message may be answered again: sent once more, it is not a duplicate of a turn that is over.
          await history()
            .finishTurn?.({ owner: data.owner, messageId: data.message.id, turnId: data.turnId, status: "failed" })
            .catch(() => {});
        }
        throw error;
      }
    },
  );
}

export const chatTurn = createChatTurnFunction({ publisher: realtimePublisher });

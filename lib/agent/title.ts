import "server-only";
import { generateText } from "ai";
import type { HistoryConfig, Reply } from "@/lib/history/types";
import { requestKindHeaders, TITLE_REQUEST } from "@/lib/model/request-kind.mjs";
import { modelTitle, TITLE_INSTRUCTIONS, titleRequestText } from "@/lib/model/title-request";
import { textOf } from "@/lib/protocol/parts";
import type { Network } from "./network";
import type { StepRunner } from "./steps";

// A thread is named by the model after its first reply. Until then, and
// whenever the model gives no title, it keeps the first words of its first
// message (lib/history/title.ts), stored with that message.
//
// Where it fits the turn: once the reply is stored, as one step ("title")
// before the stream's end, capped by the network's titleTimeoutMs. The model
// reads the exchange (the message and the reply), as a person naming the
// conversation would. By then every word of the reply has been streamed and
// stored, so the title never delays the reply's text; only the stream's
// finish waits, for at most the cap. Starting it beside the model call instead
// would save that wait but make it a second step running in parallel with the
// streaming model step, which a durable run plans and runs as separate
// requests, and it would read the user's words alone. As one more step in
// line, a durable run memoizes it like any other (a replay or a retried later
// step never asks twice), and the inline runtime runs it through the same
// wrapper.
//
// It never fails the turn: a model error, an empty answer, a timeout or a
// failed store is logged, and the step's value is null (no title). The store
// is conditional (TitleStore.storeModelTitle): a thread the user renamed,
// even while the title was on its way, keeps its name, and only a title that
// was stored is streamed.

/** What naming a thread needs: the turn's model and settings, its adapter, and its step wrapper. */
export interface TitleDeps {
  history: HistoryConfig;
  network: Network;
  step: StepRunner;
  /** The turn's Stop: a title still on its way is given up with the turn. */
  signal?: AbortSignal;
}

/**
 * Whether a turn names its thread: its user message is the thread's first
 * (seq 1, also when a failed first turn is sent again) and its reply was
 * stored. Any later reply leaves the title as it is. (The turn asks only after
 * a complete reply.)
 */
export function namesThread({ userSeq, replySeq }: { userSeq?: number; replySeq?: number }): boolean {
  return userSeq === 1 && replySeq !== undefined;
}

/** Asks the model for the thread's title and stores it; the title, or null when none was stored. */
export async function nameThread(
  target: { owner: string; threadId: string; message: string; reply: Reply },
  { history, network, step, signal }: TitleDeps,
): Promise<string | null> {
  const titles = history.titles;
  const timeoutMs = network.titleTimeoutMs;
  if (!titles || !timeoutMs) return null;
  const { owner, threadId } = target;
  return step("title", async () => {
    try {
      const timeout = AbortSignal.timeout(timeoutMs);
      const { text } = await generateText({
        model: network.model,
        system: TITLE_INSTRUCTIONS,
        prompt: titleRequestText(target.message, textOf(target.reply)),
        headers: requestKindHeaders(TITLE_REQUEST),
        maxOutputTokens: 40,
        // A retry would only stretch the wait the cap bounds.
        maxRetries: 0,
        abortSignal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      const title = modelTitle(text);
      if (title === null) {
        console.warn(`[thread ${threadId}] the model gave no title; the first words stay`);
        return null;
      }
      return (await titles.storeModelTitle({ owner, threadId, title })) ? title : null;
    } catch (error) {
      console.warn(`[thread ${threadId}] no title from the model; the first words stay:`, error instanceof Error ? error.message : error);
      return null;
    }
  });
}

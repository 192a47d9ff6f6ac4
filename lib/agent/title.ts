import "server-only";
import { generateText } from "ai";
import type { TurnHistory, Reply } from "@threadline/history/contract";
import { requestKindHeaders, TITLE_REQUEST } from "@/lib/model/request-kind.mjs";
import { modelTitle, TITLE_INSTRUCTIONS, titleRequestText } from "@/lib/model/title-request";
import { textOf } from "@threadline/history/parts";
import { randomUUID } from "node:crypto";
import { tokensFromResult, type ModelUsage } from "@threadline/history/usage";
import { utilityModelIdOf, utilityModelOf, withModel, type Network } from "./network/network";
import type { StepRunner } from "./turn/steps";
import { inputTokensOf, reservedCall, type CallToReserve } from "./model/spend";

/** A title is a few words: the model may write no more. */
const TITLE_OUTPUT_TOKENS = 40;

// A thread is named by the model after its first reply. Until then, and
// whenever the model gives no title, it keeps the first words of its first
// message (packages/history/src/title.ts), stored with that message. An edit of the
// first message asks again, over the model's earlier title but never over a
// rename.
//
// Where it fits: after the turn, once the stream has finished and the thread
// is free. The model reads the exchange (the message and the reply), as a
// person naming the conversation would, so it cannot start before the reply
// is written; asked before the finish, it would hold the composer and Stop on
// screen for a second model call after every word was shown. The stored
// title reaches every open page of the owner as the sidebar's news (a
// database trigger announces it), the page that sent the message included.
// The inline runtime asks once it has released the thread; a durable run asks
// in a step of its own after the step that published the finish, memoized
// like any other (a replay or a retry never asks twice).
//
// It never fails anything: a model error, an empty answer, a timeout
// (titleTimeoutMs) or a failed store is logged, and no title is stored. The
// store is conditional (TitleStore.storeModelTitle): a thread the user
// renamed, even while the title was on its way, keeps its name.

/** A thread to name: its owner and id, and the exchange the model reads. */
export interface ThreadToName {
  owner: string;
  threadId: string;
  message: string;
  reply: Reply;
  /** An edit of the first message: the new title replaces the model's earlier one too. */
  renaming?: boolean;
}

/** What naming a thread needs: the turn's model and settings, its adapter, and its step wrapper. */
export interface TitleDeps {
  history: TurnHistory;
  network: Network;
  step: StepRunner;
}

/**
 * Whether a turn names its thread: its user message is the thread's first
 * (seq 1, also when a failed first turn is sent again) and its reply was
 * stored. Any later reply leaves the title as it is. (The turn asks only after
 * a complete reply; an edit of the first message is told by its parent.)
 */
export function namesThread({ userSeq, replySeq }: { userSeq?: number; replySeq?: number }): boolean {
  return userSeq === 1 && replySeq !== undefined;
}

/** Asks the model for the thread's title and stores it; the title, or null when none was stored. */
export async function nameThread(target: ThreadToName, { history, network, step }: TitleDeps): Promise<string | null> {
  const { titles } = history;
  const timeoutMs = network.titleTimeoutMs;
  if (!timeoutMs) return null;
  const { owner, threadId } = target;
  return step("title", async () => {
    try {
      const timeout = AbortSignal.timeout(timeoutMs);
      const thread = withModel(network, target.reply.model);
      const prompt = titleRequestText(target.message, textOf(target.reply));
      // Inside the step: a durable runtime's replay of it reserves and stores nothing again.
      const call: CallToReserve = {
        id: randomUUID(),
        owner,
        threadId,
        purpose: "title",
        model: utilityModelIdOf(thread),
        inputTokens: inputTokensOf(TITLE_INSTRUCTIONS, [{ role: "user", content: prompt }]),
        outputCap: TITLE_OUTPUT_TOKENS,
        outputMin: TITLE_OUTPUT_TOKENS,
      };
      const ran = await reservedCall(
        network.spend,
        call,
        () =>
          generateText({
            model: utilityModelOf(thread),
            system: TITLE_INSTRUCTIONS,
            prompt,
            headers: requestKindHeaders(TITLE_REQUEST),
            maxOutputTokens: TITLE_OUTPUT_TOKENS,
            // A retry would only stretch the wait the cap bounds.
            maxRetries: 0,
            abortSignal: timeout,
          }),
        (result) => ({ tokens: tokensFromResult(result.usage), exact: true }),
      );
      if ("refusal" in ran) {
        console.info(`[thread ${threadId}] no title from the model: ${ran.refusal.message}`);
        return null;
      }
      // Off everyone's path: the call's settlement lands before the step ends.
      await network.spend?.settled?.(owner);
      const { text, usage: spent } = ran.result;
      const title = modelTitle(text);
      const usage: ModelUsage = { id: call.id, purpose: "title", model: call.model, ...tokensFromResult(spent) };
      if (title === null) {
        await titles.storeModelTitle({ owner, threadId, title: null, usage });
        console.warn(`[thread ${threadId}] the model gave no title; the first words stay`);
        return null;
      }
      if (await titles.storeModelTitle({ owner, threadId, title, overModel: target.renaming, usage })) return title;
      console.info(`[thread ${threadId}] keeps the name its user gave it; the model's title is not stored`);
      return null;
    } catch (error) {
      console.warn(`[thread ${threadId}] no title from the model; the first words stay:`, error instanceof Error ? error.message : error);
      return null;
    }
  });
}

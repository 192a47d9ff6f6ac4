import "server-only";
import { runTurn, type TurnInput } from "@/lib/agent/turn";
import type { Network } from "@/lib/agent/network";
import { AppError } from "@/lib/errors";
import type { HistoryConfig } from "@/lib/history/types";
import { TurnChannel } from "./turn-channel";
import type { StartedTurn, TurnRuntime } from "./types";

interface ActiveTurn {
  owner: string;
  controller: AbortController;
}

/**
 * Runs each turn in this process, detached from the request: closing the tab
 * does not stop it, Stop does. One turn per thread at a time (per process).
 */
export class InlineRuntime implements TurnRuntime {
  readonly name = "inline";
  private readonly active = new Map<string, ActiveTurn>();

  constructor(private readonly deps: { history: () => HistoryConfig; network: () => Network }) {}

  start(input: TurnInput): Promise<StartedTurn> {
    const controller = new AbortController();
    const channel = new TurnChannel();
    const claim = (threadId: string) => {
      if (this.active.has(threadId)) {
        throw new AppError("conflict:turn_in_progress", "A reply is still being written in this thread. Wait for it or press Stop.");
      }
      this.active.set(threadId, { owner: input.owner, controller });
    };
    // Claimed before any await, so two requests for one thread cannot both pass.
    if (input.threadId) claim(input.threadId);
    let claimed = input.threadId;

    return new Promise<StartedTurn>((resolve, reject) => {
      let ready = false;
      runTurn(input, {
        history: this.deps.history(),
        network: this.deps.network(),
        publish: channel.publish,
        signal: controller.signal,
        onReady: ({ threadId, historySource }) => {
          if (!claimed) {
            claim(threadId);
            claimed = threadId;
          }
          ready = true;
          resolve({ threadId, historySource, stream: channel.readable() });
        },
      })
        .then((outcome) => {
          if (outcome.error) console.error(`[turn ${outcome.threadId}] failed:`, outcome.error);
        })
        .catch((error) => {
          if (!ready) return reject(error);
          console.error("[turn] failed after the stream started:", error);
          channel.publish({ type: "error", errorText: "The server failed while answering. Please try again." });
        })
        .finally(() => {
          channel.close();
          if (claimed && this.active.get(claimed)?.controller === controller) this.active.delete(claimed);
        });
    });
  }

  async stop(owner: string, threadId: string): Promise<boolean> {
    const turn = this.active.get(threadId);
    if (!turn || turn.owner !== owner) return false;
    turn.controller.abort(new Error("Stopped by the user"));
    return true;
  }
}

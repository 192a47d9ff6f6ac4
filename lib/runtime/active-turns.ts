import { notFoundThread, threadBusy } from "@threadline/history/errors";

interface ActiveTurn {
  owner: string;
  controller: AbortController;
  /** The turn's id, as the database records it: a Stop announced by another process names it. */
  turnId: string;
  /** The client id of the message it answers. */
  messageId?: string;
}

const stopReason = () => new Error("Stopped by the user");

/**
 * The turns this process is running, by thread: the handle a Stop aborts, and
 * the fast path of the one-turn-per-thread rule (the database keeps the rule
 * for every process: threadline_open_turn). One per process (lib/app.ts), so
 * the inline runtime and the Inngest function (served by the same process)
 * share it.
 */
export class ActiveTurns {
  private readonly turns = new Map<string, ActiveTurn>();

  /**
   * Claims the thread for a new turn, or refuses while another is running
   * there: 409 to its owner, 404 to anyone else, exactly as for a thread that
   * does not exist, so a running reply does not reveal the thread. The same
   * message sent again is not refused but not claimed either (false): that
   * request waits for the running turn's answer.
   */
  claim(threadId: string, owner: string, controller: AbortController, turnId: string, messageId?: string): boolean {
    const running = this.turns.get(threadId);
    if (running && running.owner !== owner) throw notFoundThread();
    if (running && messageId !== undefined && running.messageId === messageId) return false;
    if (running) throw threadBusy();
    this.turns.set(threadId, { owner, controller, turnId, messageId });
    return true;
  }

  /** Registers the running model call of a durable run (no conflict check: the database refused a second turn already). */
  track(threadId: string, owner: string, controller: AbortController, turnId: string): void {
    this.turns.set(threadId, { owner, controller, turnId });
  }

  release(threadId: string, controller: AbortController): void {
    if (this.turns.get(threadId)?.controller === controller) this.turns.delete(threadId);
  }

  /** Stop asked in this process, by the thread's owner. */
  stop(owner: string, threadId: string): boolean {
    const turn = this.turns.get(threadId);
    if (!turn || turn.owner !== owner) return false;
    turn.controller.abort(stopReason());
    return true;
  }

  /** Stop recorded in the database (for any owner's request, checked there): aborts that turn if this process runs it. */
  stopTurn(threadId: string, turnId: string): boolean {
    const turn = this.turns.get(threadId);
    if (!turn || turn.turnId !== turnId) return false;
    turn.controller.abort(stopReason());
    return true;
  }
}

import { AppError, notFoundThread } from "@/lib/errors";

interface ActiveTurn {
  owner: string;
  controller: AbortController;
  /** The client id of the message it answers. */
  messageId?: string;
}

/**
 * The turns this process is running, by thread: one at a time per thread, and
 * the handle that Stop aborts. One per process (lib/app.ts), so the inline
 * runtime and the Inngest function (served by the same process) share it.
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
  claim(threadId: string, owner: string, controller: AbortController, messageId?: string): boolean {
    const running = this.turns.get(threadId);
    if (running && running.owner !== owner) throw notFoundThread();
    if (running && messageId !== undefined && running.messageId === messageId) return false;
    if (running) {
      throw new AppError("conflict:turn_in_progress", "A reply is still being written in this thread. Wait for it or press Stop.");
    }
    this.turns.set(threadId, { owner, controller, messageId });
    return true;
  }

  /** Registers the running model call of a durable run (no conflict check: Inngest queues turns per thread). */
  track(threadId: string, owner: string, controller: AbortController): void {
    this.turns.set(threadId, { owner, controller });
  }

  release(threadId: string, controller: AbortController): void {
    if (this.turns.get(threadId)?.controller === controller) this.turns.delete(threadId);
  }

  stop(owner: string, threadId: string): boolean {
    const turn = this.turns.get(threadId);
    if (!turn || turn.owner !== owner) return false;
    turn.controller.abort(new Error("Stopped by the user"));
    return true;
  }
}

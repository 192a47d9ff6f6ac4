import "server-only";
import type { ApprovalStore } from "@threadline/history/contract";
import type { ReminderStore } from "@/lib/reminders/reminder-store";
import type { TurnRuntime } from "./types";

/** How often each server looks. A reminder is posted within about this long of its time. */
export const DUE_WORK_EVERY_MS = 1_000;
const BATCH = 20;

/**
 * What comes due on the inline runtime, looked for by every server once a
 * second, whichever is up, taken by one: reminders (each posted once:
 * threadline_post_due_reminders takes its row with SKIP LOCKED), and
 * replies that could go on after their decisions while nothing goes on with
 * them (a server died mid-way, or its calls expired undecided), and memory
 * lessons a server left (it died mid-way, or the lesson failed once). The Inngest
 * runtime needs none of it: its runs sleep and wait for these themselves.
 */
export class DueWork {
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      reminders: () => Pick<ReminderStore, "postDue">;
      approvals: () => Pick<ApprovalStore, "dueReplies">;
      runtime: () => Pick<TurnRuntime, "goOn">;
      /** Memory lessons left by a server that died or failed (lib/memory/lesson-runner.ts); unset or undefined: none. */
      lessons?: () => { runDue(): Promise<void> } | undefined;
      approvalTimeoutMs: number;
      everyMs?: number;
    },
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.look(), this.deps.everyMs ?? DUE_WORK_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.looking;
  }

  /** One look; a look still under way is not started again. */
  look(): Promise<void> {
    this.looking ??= this.lookOnce().finally(() => (this.looking = undefined));
    return this.looking;
  }

  private async lookOnce(): Promise<void> {
    try {
      await this.deps.reminders().postDue(BATCH);
      const due = await this.deps.approvals().dueReplies({ timeoutMs: this.deps.approvalTimeoutMs, limit: BATCH });
      for (const reply of due) await this.deps.runtime().goOn(reply);
      await this.deps.lessons?.()?.runDue();
    } catch (error) {
      // The database away for a moment: the next look tries again.
      console.error("[due work] look failed:", (error as Error).message);
    }
  }
}

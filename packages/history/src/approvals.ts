// What the model reads of a tool call the user did not let run: the one text
// a denied, expired, stopped, skipped or forked call's result holds, whoever
// writes it (the turn that goes on after a decision, or the database settling
// a reply the user moved on from, stopped, or forked while it waited).
import type { ResultOutcome } from "./parts";

export type Denial = Exclude<ResultOutcome, "approved">;

export function denialText(outcome: Denial, reason?: string): string {
  switch (outcome) {
    case "denied":
      return reason ? `The user denied this: ${reason}` : "The user denied this.";
    case "expired":
      return "The user did not decide in time, so this did not run.";
    case "stopped":
      return "The user stopped the reply before this ran.";
    case "moved_on":
      return "The user moved on";
    case "forked":
      return "This was not decided in the original thread before it was forked, so it did not run in this copy.";
  }
}

// A page that did not take part in its thread's latest change (another tab or
// device of the same identity sent a message, a reply ended there, a version
// was chosen) catches up from the server's latest page of the thread.
import type { HistoryMessage } from "@/lib/protocol/threads";
import { isUnanswered, toChatMessage, type ChatMessage } from "@/lib/client/messages";

export interface CatchUp {
  /** The page shows something else than the server holds: draw the server's page. */
  redraw: boolean;
  /** The thread ends with a message not answered yet: follow its reply (GET /api/threads/:id/stream; 204 when none runs). */
  follow: boolean;
  /**
   * The thread ends with a reply that waits for the user's decision: follow
   * it going on, should a decision made elsewhere have set it going (the same
   * stream; most often nothing runs, and the page stays as it is).
   */
  continuation: boolean;
}

/**
 * Compared by message id, the server's latest page against the same number
 * of the page's last messages, and the last reply's tool calls (a decision
 * changes no id). A page that has just finished its own reply
 * holds exactly the server's messages and does nothing: drawing it again
 * would only cost it its trusted copy. Summaries are not compared. `endedHere` is the user's message
 * whose turn this page saw end without a reply (an error, an interruption):
 * while the thread still ends with it unanswered, the page already shows how
 * it ended, and keeps showing it (a Retry pressed in another tab shows here
 * once its reply is stored).
 */
export function catchUpWith(shown: ChatMessage[], latest: HistoryMessage[], endedHere: string | null = null): CatchUp {
  const theirMessages = latest.map(toChatMessage);
  const unanswered = isUnanswered(theirMessages);
  const last = latest.at(-1);
  const continuation = last?.role === "assistant" && last.status === "waiting";
  if (unanswered && endedHere !== null && last?.id === endedHere) return { redraw: false, follow: false, continuation: false };
  // A summary written after a turn joins the page with the next reply (its data part), as on the page that wrote the turn.
  const theirs = latest.filter((m) => m.role !== "system").map((m) => m.id);
  const ours = shown
    .filter((m) => m.role !== "system")
    .slice(-theirs.length)
    .map((m) => m.id);
  const redraw = theirs.length !== ours.length || theirs.some((id, i) => id !== ours[i]) || lastReplyMovedOn(shown, theirMessages);
  return { redraw, follow: unanswered, continuation };
}

/**
 * The same last reply on both sides, but its tool calls stand elsewhere on
 * the server: one was decided, the reply went on (waiting → complete) or was
 * stopped while it waited. Text is not compared: the page's own reply,
 * just ended, holds what the server stored, and drawing it again would only
 * cost it its trusted copy.
 */
function lastReplyMovedOn(shown: ChatMessage[], theirs: ChatMessage[]): boolean {
  const ours = shown.findLast((m) => m.role !== "system");
  const their = theirs.findLast((m) => m.role !== "system");
  if (!ours || !their || ours.id !== their.id || their.role !== "assistant") return false;
  return toolStates(ours) !== toolStates(their);
}

/**
 * Where each tool call of a reply stands. A call decided while its reply
 * still waits says how (the server's page carries the decisions made so
 * far, the page that decided has its own), so a call decided elsewhere is
 * drawn decided even when its reply's going on is missed.
 */
function toolStates(message: ChatMessage): string {
  return message.parts
    .map((part) => {
      if (part.type !== "dynamic-tool") return null;
      const state = part.state === "approval-responded" ? `decided-${part.approval?.approved === true}` : part.state === "input-streaming" ? "input-available" : part.state;
      return `${part.toolCallId}:${state}`;
    })
    .filter((state) => state !== null)
    .join(",");
}

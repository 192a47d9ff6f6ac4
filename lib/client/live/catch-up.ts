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
}

/**
 * Compared by message id, the server's latest page against the same number
 * of the page's last messages. A page that has just finished its own reply
 * holds exactly the server's messages and does nothing: drawing it again
 * would only cost it its trusted copy. Summaries are not compared. `endedHere` is the user's message
 * whose turn this page saw end without a reply (an error, an interruption):
 * while the thread still ends with it unanswered, the page already shows how
 * it ended, and keeps showing it (a Retry pressed in another tab shows here
 * once its reply is stored).
 */
export function catchUpWith(shown: ChatMessage[], latest: HistoryMessage[], endedHere: string | null = null): CatchUp {
  const unanswered = isUnanswered(latest.map(toChatMessage));
  if (unanswered && endedHere !== null && latest.at(-1)?.id === endedHere) return { redraw: false, follow: false };
  // A summary written after a turn joins the page with the next reply (its data part), as on the page that wrote the turn.
  const theirs = latest.filter((m) => m.role !== "system").map((m) => m.id);
  const ours = shown
    .filter((m) => m.role !== "system")
    .slice(-theirs.length)
    .map((m) => m.id);
  const redraw = theirs.length !== ours.length || theirs.some((id, i) => id !== ours[i]);
  return { redraw, follow: unanswered };
}

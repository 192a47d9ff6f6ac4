// How a page keeps up with its thread while replies are written elsewhere: it
// follows a running reply live (another tab's turn, a decision's
// continuation), resumes the one being written when it was rendered, and
// catches up with the server once news comes. Three regions move side by
// side (whether a page shows the thread, the stream followed, the catch-up
// read), each a union of its states; `transition` is every rule, and the
// effects it returns are what the thread controller does about them.

/** Whether a page shows the thread; once it has, whether the turn pending at its rendering was followed already (a page mounted twice resumes it once). */
export type PageState = { kind: "hidden" } | { kind: "shown"; pendingFollowed: boolean };

/**
 * The reply stream the page follows (GET /api/threads/:id/stream), not one it
 * asked for itself. `quiet`: it may be a waiting reply's continuation, and
 * when none runs the page stays as it is. `replyEnded`: its reply ended (or
 * nothing ran) while the stream is being let go. `missedNews`: the thread's
 * news came meanwhile, to be caught up with once the stream ends. `streams`:
 * how many are open; one asked for while another opens replaces it, and the
 * page follows until both are let go.
 */
export type StreamState = { kind: "none" } | { kind: "following"; streams: number; quiet: boolean; replyEnded: boolean; missedNews: boolean };

/** The read of the thread's latest page; `again`: news came during it, so it reads once more. */
export type CatchUpState = { kind: "idle" } | { kind: "reading"; again: boolean };

export interface FollowState {
  page: PageState;
  stream: StreamState;
  catchUp: CatchUpState;
  /** Decisions on tool calls sent and not yet answered: their continuation is followed from the answer, not from news. */
  deciding: number;
}

export type FollowEvent =
  /** A page shows the thread. */
  | { type: "shown" }
  /** The page no longer shows it. */
  | { type: "hidden" }
  /** The page was rendered while a reply was being written, or a waiting reply went on. */
  | { type: "pending-turn" }
  /** A reply asked for elsewhere (another tab, a decision) is being written now. */
  | { type: "running-turn" }
  /** The thread ends with a reply waiting for a decision that may have been made elsewhere. */
  | { type: "maybe-continuation" }
  /** The server had no running reply to stream (204). */
  | { type: "nothing-to-resume" }
  /** A reply ended; `withoutEnd`: its stream closed without a finish (its server went away). */
  | { type: "reply-ended"; withoutEnd: boolean }
  /** The followed stream was let go. */
  | { type: "follow-ended" }
  /** The thread changed elsewhere (its news). */
  | { type: "news" }
  /** The read was dropped: the page is writing or following a reply. */
  | { type: "catch-up-deferred" }
  /** A read of the latest page was drawn. */
  | { type: "catch-up-passed" }
  /** A read failed: the page stays as it is until the next news. */
  | { type: "catch-up-failed" }
  | { type: "deciding" }
  | { type: "decided" };

export type FollowEffect =
  /** Follow the running reply as one asked for here (the page busy, the turn's notice and Stop shown). */
  | "resume"
  /** Follow a possible continuation without moving the page. */
  | "follow-quietly"
  /** Read the thread's latest page (a catch-up pass). */
  | "read-latest"
  /** Start catching up (the news missed while a stream was followed). */
  | "catch-up"
  /** Draw the thread as the server holds it. */
  | "redraw-thread";

export interface FollowStep {
  state: FollowState;
  effects: FollowEffect[];
}

export const initialFollowState: FollowState = { page: { kind: "hidden" }, stream: { kind: "none" }, catchUp: { kind: "idle" }, deciding: 0 };

/** A stream opened, beside any still being let go. */
function follow(stream: StreamState, quiet: boolean): StreamState {
  const open = stream.kind === "following" ? stream : { streams: 0, missedNews: false };
  return { kind: "following", streams: open.streams + 1, quiet, replyEnded: false, missedNews: open.missedNews };
}

export function transition(state: FollowState, event: FollowEvent): FollowStep {
  const to = (change: Partial<FollowState>, ...effects: FollowEffect[]): FollowStep => ({ state: { ...state, ...change }, effects });
  const { page, stream, catchUp } = state;
  switch (event.type) {
    case "shown":
      return page.kind === "shown" ? to({}) : to({ page: { kind: "shown", pendingFollowed: false } });
    case "hidden":
      return to({ page: { kind: "hidden" } });
    case "pending-turn":
      if (page.kind !== "shown" || page.pendingFollowed) return to({});
      return to({ page: { kind: "shown", pendingFollowed: true }, stream: follow(stream, false) }, "resume");
    case "running-turn":
      return to({ page: page.kind === "shown" ? { kind: "shown", pendingFollowed: true } : page, stream: follow(stream, false) }, "resume");
    case "maybe-continuation":
      if (state.deciding > 0) return to({});
      return to({ stream: follow(stream, true) }, "follow-quietly");
    case "nothing-to-resume": {
      if (stream.kind === "none") return to({});
      const redraw = page.kind === "shown" && !stream.quiet;
      return to({ stream: { ...stream, quiet: false, replyEnded: true } }, ...(redraw ? (["redraw-thread"] as const) : []));
    }
    case "reply-ended": {
      if (stream.kind === "none" || stream.replyEnded) return to({});
      const redraw = event.withoutEnd && page.kind === "shown";
      return to({ stream: { ...stream, replyEnded: true } }, ...(redraw ? (["redraw-thread"] as const) : []));
    }
    case "follow-ended":
      if (stream.kind === "none") return to({});
      if (stream.streams > 1) return to({ stream: { ...stream, streams: stream.streams - 1 } });
      return to({ stream: { kind: "none" } }, ...(stream.missedNews && page.kind === "shown" ? (["catch-up"] as const) : []));
    case "news":
      if (catchUp.kind === "reading") return to({ catchUp: { kind: "reading", again: true } });
      return to({ catchUp: { kind: "reading", again: false } }, "read-latest");
    case "catch-up-deferred":
      return to({ catchUp: { kind: "idle" }, stream: stream.kind === "following" ? { ...stream, missedNews: true } : stream });
    case "catch-up-passed":
      if (catchUp.kind === "reading" && catchUp.again) return to({ catchUp: { kind: "reading", again: false } }, "read-latest");
      return to({ catchUp: { kind: "idle" } });
    case "catch-up-failed":
      return to({ catchUp: { kind: "idle" } });
    case "deciding":
      return to({ deciding: state.deciding + 1 });
    case "decided":
      return to({ deciding: Math.max(0, state.deciding - 1) });
  }
}

import { describe, expect, it } from "vitest";
import { initialFollowState, transition, type FollowEvent, type FollowState } from "@/lib/client/live/follow-machine";

// How a page follows its thread's replies, resumes one, and catches up: each
// rule of the machine, which events it takes in which state and what they lead to.

const shown: FollowState = { ...initialFollowState, page: { kind: "shown", pendingFollowed: false } };
const following = (change: Partial<Extract<FollowState["stream"], { kind: "following" }>> = {}): FollowState => ({
  ...shown,
  page: { kind: "shown", pendingFollowed: true },
  stream: { kind: "following", streams: 1, quiet: false, replyEnded: false, missedNews: false, ...change },
});
const reading = (again: boolean): FollowState => ({ ...shown, catchUp: { kind: "reading", again } });

/** The state after each event in turn, and every effect on the way. */
function run(state: FollowState, ...events: FollowEvent[]) {
  const effects: string[] = [];
  for (const event of events) {
    const step = transition(state, event);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

describe("whether a page shows the thread", () => {
  it("a page shown starts with its pending turn not yet followed", () => {
    expect(run(initialFollowState, { type: "shown" })).toEqual({ state: shown, effects: [] });
  });

  it("shown again while shown changes nothing", () => {
    const state: FollowState = { ...shown, page: { kind: "shown", pendingFollowed: true } };
    expect(run(state, { type: "shown" })).toEqual({ state, effects: [] });
  });

  it("hidden forgets that the pending turn was followed: a page shown again resumes it", () => {
    const { effects } = run(following(), { type: "hidden" }, { type: "shown" }, { type: "pending-turn" });
    expect(effects).toEqual(["resume"]);
  });
});

describe("the turn pending when the page was rendered", () => {
  it("is resumed once the page shows it, the page following its stream", () => {
    expect(run(shown, { type: "pending-turn" })).toEqual({ state: following(), effects: ["resume"] });
  });

  it("is resumed once: the page mounted twice does not resume it again", () => {
    expect(run(following(), { type: "pending-turn" }).effects).toEqual([]);
  });

  it("is not resumed by a page that does not show it", () => {
    expect(run(initialFollowState, { type: "pending-turn" })).toEqual({ state: initialFollowState, effects: [] });
  });
});

describe("a reply asked for elsewhere", () => {
  it("is resumed, and counts as the pending turn followed", () => {
    expect(run(shown, { type: "running-turn" })).toEqual({ state: following(), effects: ["resume"] });
  });

  it("asked for while another stream is being let go: the page follows until both are", () => {
    const { state, effects } = run(following({ quiet: true }), { type: "running-turn" }, { type: "follow-ended" });
    expect(effects).toEqual(["resume"]);
    expect(state.stream).toEqual({ kind: "following", streams: 1, quiet: false, replyEnded: false, missedNews: false });
  });
});

describe("a waiting reply's possible continuation", () => {
  it("is followed quietly", () => {
    const { state, effects } = run(shown, { type: "maybe-continuation" });
    expect(effects).toEqual(["follow-quietly"]);
    expect(state.stream).toEqual({ kind: "following", streams: 1, quiet: true, replyEnded: false, missedNews: false });
  });

  it("is left to the decision that set it going, while one is being sent", () => {
    const deciding = run(shown, { type: "deciding" }).state;
    expect(run(deciding, { type: "maybe-continuation" })).toEqual({ state: deciding, effects: [] });
  });

  it("is followed again once every decision sent has its answer", () => {
    const { effects } = run(shown, { type: "deciding" }, { type: "deciding" }, { type: "decided" }, { type: "decided" }, { type: "maybe-continuation" });
    expect(effects).toEqual(["follow-quietly"]);
  });
});

describe("nothing to resume (the reply ended before the page asked)", () => {
  it("draws the thread as the server holds it", () => {
    const { state, effects } = run(following(), { type: "nothing-to-resume" });
    expect(effects).toEqual(["redraw-thread"]);
    expect(state.stream).toMatchObject({ kind: "following", replyEnded: true });
  });

  it("leaves the page as it is after a quiet follow", () => {
    expect(run(following({ quiet: true }), { type: "nothing-to-resume" }).effects).toEqual([]);
  });

  it("leaves a page that no longer shows the thread as it is", () => {
    expect(run({ ...following(), page: { kind: "hidden" } }, { type: "nothing-to-resume" }).effects).toEqual([]);
  });

  it("is ignored when no stream is followed", () => {
    expect(run(shown, { type: "nothing-to-resume" })).toEqual({ state: shown, effects: [] });
  });
});

describe("a reply's end", () => {
  it("of a followed reply that closed without its end: the thread is drawn as the server holds it", () => {
    const { state, effects } = run(following(), { type: "reply-ended", withoutEnd: true });
    expect(effects).toEqual(["redraw-thread"]);
    expect(state.stream).toMatchObject({ replyEnded: true });
  });

  it("of a followed reply that finished: nothing more", () => {
    expect(run(following(), { type: "reply-ended", withoutEnd: false }).effects).toEqual([]);
  });

  it("of a reply this page asked for, not followed: ignored", () => {
    expect(run(shown, { type: "reply-ended", withoutEnd: true })).toEqual({ state: shown, effects: [] });
  });

  it("a second end of the same followed reply: ignored", () => {
    const ended = following({ replyEnded: true });
    expect(run(ended, { type: "reply-ended", withoutEnd: true })).toEqual({ state: ended, effects: [] });
  });
});

describe("the followed stream let go", () => {
  it("the page follows nothing", () => {
    expect(run(following(), { type: "follow-ended" }).state.stream).toEqual({ kind: "none" });
  });

  it("news missed meanwhile is caught up with", () => {
    expect(run(following(), { type: "catch-up-deferred" }, { type: "follow-ended" }).effects).toEqual(["catch-up"]);
  });

  it("news missed by a page that no longer shows the thread is not", () => {
    const hidden = { ...following({ missedNews: true }), page: { kind: "hidden" } } as FollowState;
    expect(run(hidden, { type: "follow-ended" }).effects).toEqual([]);
  });

  it("is ignored when no stream is followed", () => {
    expect(run(shown, { type: "follow-ended" })).toEqual({ state: shown, effects: [] });
  });
});

describe("catching up on the thread's news", () => {
  it("reads the thread's latest page", () => {
    expect(run(shown, { type: "news" })).toEqual({ state: reading(false), effects: ["read-latest"] });
  });

  it("news during a read: the read is done once more, not twice at once", () => {
    expect(run(reading(false), { type: "news" }, { type: "news" })).toEqual({ state: reading(true), effects: [] });
  });

  it("a read done with news since: reads again", () => {
    expect(run(reading(true), { type: "catch-up-passed" })).toEqual({ state: reading(false), effects: ["read-latest"] });
  });

  it("a read done with no news since: done", () => {
    expect(run(reading(false), { type: "catch-up-passed" })).toEqual({ state: shown, effects: [] });
  });

  it("a read dropped while a stream is followed: the news waits for the stream's end", () => {
    const { state, effects } = run({ ...following(), catchUp: { kind: "reading", again: true } }, { type: "catch-up-deferred" });
    expect(effects).toEqual([]);
    expect(state.catchUp).toEqual({ kind: "idle" });
    expect(state.stream).toMatchObject({ missedNews: true });
  });

  it("a read dropped while the page writes its own reply: the news is dropped with it", () => {
    expect(run(reading(true), { type: "catch-up-deferred" })).toEqual({ state: shown, effects: [] });
  });

  it("a read that failed: done, until the next news", () => {
    expect(run(reading(true), { type: "catch-up-failed" })).toEqual({ state: shown, effects: [] });
  });
});

import { describe, expect, it } from "vitest";
import { clientHistoryCovers } from "@/lib/agent/turn/lifecycle";
import { isSignedRun, seqAfter, signMessage } from "@/lib/auth/history-signature";
import type { ThreadMessage } from "@threadline/history/parts";

// A thread with versions: its active path leaves gaps in the seqs where other
// versions sit, so a client's copy of the path is checked by the parents its
// signatures cover, not by adjacent seqs.
const secret = "unit-secret-0123456789abcdef0123456789abcdef";
const owner = "owner-1";
const thread = "7b0c1a52-4c1e-4bb0-9b7e-7f8c2f6d1e01";

type Placed = ThreadMessage & { seq: number; parentId: string | null };
const message = (id: string, role: "user" | "assistant", seq: number, parentId: string | null): Placed => ({
  id,
  role,
  parts: [{ type: "text", text: `${id} says` }],
  seq,
  parentId,
});
const signed = (m: Placed) => ({ ...m, signature: signMessage(secret, owner, thread, m) });

// u1(1) a1(2) u2(3) a2(4) | a2 regenerated: a2b(5) | u2 edited: u2b(6) a3(7)
const u1 = message("u1", "user", 1, null);
const a1 = message("a1", "assistant", 2, "u1");
const u2 = message("u2", "user", 3, "a1");
const a2 = message("a2", "assistant", 4, "u2");
const a2b = message("a2b", "assistant", 5, "u2");
const u2b = message("u2b", "user", 6, "a1");
const a3 = message("a3", "assistant", 7, "u2b");

describe("a signed copy of a path with versions beside it", () => {
  it("verifies along the path, across the gaps in its seqs", () => {
    expect(isSignedRun(secret, owner, thread, [u1, a1, u2b, a3].map(signed))).toBe(true);
    expect(isSignedRun(secret, owner, thread, [u1, a1, u2, a2b].map(signed))).toBe(true);
  });

  it("does not verify spliced from two versions, with a message dropped, or with a parent changed or left out", () => {
    // a3 answers the edited message, not u2.
    expect(isSignedRun(secret, owner, thread, [u1, a1, u2, a3].map(signed))).toBe(false);
    expect(isSignedRun(secret, owner, thread, [u1, u2b, a3].map(signed))).toBe(false);
    const reparented = { ...signed(a3), parentId: "u2" };
    expect(isSignedRun(secret, owner, thread, [...[u1, a1, u2].map(signed), reparented])).toBe(false);
    const { parentId: _, ...unparented } = signed(u2b);
    // Without its parent it falls back to fitting end to start: u2b(6) does not follow a1(2), and its signature covers a parent.
    expect(isSignedRun(secret, owner, thread, [signed(u1), signed(a1), unparented as ReturnType<typeof signed>])).toBe(false);
  });

  it("covers the new message when it ends with the new message's parent and reaches back far enough", () => {
    const path = [u1, a1, u2b, a3];
    expect(clientHistoryCovers({ history: path, userSeq: 9, userParentId: "a3", window: undefined, seqAfter })).toBe(true);
    // A copy of the other version ends elsewhere: the turn reads the database.
    expect(clientHistoryCovers({ history: [u1, a1, u2, a2b], userSeq: 9, userParentId: "a3", window: undefined, seqAfter })).toBe(false);
    // A window that starts mid-path is enough for lastN, not for "all"; a first message starts the path.
    expect(clientHistoryCovers({ history: [u2b, a3], userSeq: 9, userParentId: "a3", window: 2, seqAfter })).toBe(true);
    expect(clientHistoryCovers({ history: [u2b, a3], userSeq: 9, userParentId: "a3", window: undefined, seqAfter })).toBe(false);
    // An edited first message starts a path of its own: nothing comes before it.
    expect(clientHistoryCovers({ history: [], userSeq: 8, userParentId: null, window: undefined, seqAfter })).toBe(true);
    expect(clientHistoryCovers({ history: [], userSeq: 8, userParentId: "a3", window: undefined, seqAfter })).toBe(false);
  });
});

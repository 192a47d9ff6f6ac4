import { randomUUID } from "node:crypto";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { Reply } from "@threadline/history/contract";
import type { Part } from "@threadline/history/parts";
import { databaseTargets, onDatabase } from "../support/db-targets";

// A thread's messages as a tree: a regenerated reply and an edited message are
// siblings of what they replace, nothing is deleted, and every read of the
// thread follows its active path. The stored tree is checked as rows, the
// reads through the adapter and the repository that the routes use.
describe.each(databaseTargets())("versions of a thread's messages, on the $name", (target) => {
  const db = onDatabase(target);
  let owner: string;
  let threadId: string;
  beforeEach(async () => {
    owner = `owner-${randomUUID()}`;
    ({ threadId } = await db.adapter.createThread({ owner }));
  });

  const text = (t: string): Part => ({ type: "text", text: t, agentName: "Assistant" });
  const ask = (id: string, content = `question ${id}`) =>
    db.adapter.appendUserMessage({ owner, threadId, turnId: `turn-${id}`, message: { id, role: "user", content } });
  /** A reply of two parts, so that every part row of a message is seen to move with it. */
  const answer = (id: string, words = `answer ${id}`) => {
    const reply: Reply = { id, role: "assistant", status: "complete", parts: [{ type: "reasoning", text: `thinking ${id}` }, text(words)] };
    return db.adapter.appendResults({ owner, threadId, reply });
  };
  const branch = (messageId: string, scope = { owner, threadId }) => db.adapter.versions.branch({ ...scope, messageId });
  const select = (messageId: string, scope = { owner, threadId }) => db.adapter.versions.select({ ...scope, messageId });
  const activeIds = async () => (await db.adapter.get({ owner, threadId })).map((m) => m.id);

  /** Every message's first row: its parent and flags, in seq order. */
  async function tree(thread = threadId) {
    const { rows } = await db.pool.query<{ message_id: string; parent_message_id: string | null; chosen: boolean; active: boolean }>(
      "SELECT message_id, parent_message_id, chosen, active FROM messages WHERE thread_id = $1 AND part_index = 0 ORDER BY seq",
      [thread],
    );
    return rows;
  }
  const childrenOf = async (parent: string | null) => (await tree()).filter((r) => r.parent_message_id === parent).map((r) => r.message_id);

  /**
   * The stored tree is whole: the active rows are one path from a first
   * message down (each follows the one before it), every part row of a
   * message carries its message's flags, an active message is chosen, and no
   * parent has two chosen children.
   */
  async function expectWholeTree(thread = threadId) {
    const { rows: mixed } = await db.pool.query(
      `SELECT message_id FROM messages WHERE thread_id = $1
        GROUP BY message_id HAVING count(DISTINCT (active, chosen, coalesce(parent_message_id, ''))) > 1`,
      [thread],
    );
    expect(mixed).toEqual([]);
    const rows = await tree(thread);
    const path = rows.filter((r) => r.active);
    path.forEach((row, i) => {
      expect(row.parent_message_id).toBe(i === 0 ? null : path[i - 1].message_id);
      expect(row.chosen).toBe(true);
    });
    const chosenPerParent = new Map<string | null, number>();
    for (const row of rows.filter((r) => r.chosen)) chosenPerParent.set(row.parent_message_id, (chosenPerParent.get(row.parent_message_id) ?? 0) + 1);
    expect([...chosenPerParent.values()].every((n) => n === 1)).toBe(true);
    const counted = path.filter((r) => !r.message_id.startsWith("summary")).length;
    expect((await db.repo.get(owner, thread)).messageCount).toBe(counted);
  }

  /** u1 a1 u2 a2, then a2 regenerated twice (a2b, a2c), then u1 edited (u1b) and answered (a1b). */
  async function regenerateTwiceThenEdit() {
    await ask("u1");
    await answer("a1");
    await ask("u2");
    await answer("a2", "the aardvark reply");
    expect(await branch("a2")).toEqual({ branched: true, parentId: "u2" });
    await answer("a2b");
    expect(await branch("a2b")).toEqual({ branched: true, parentId: "u2" });
    await answer("a2c", "the zebra reply");
    expect(await activeIds()).toEqual(["u1", "a1", "u2", "a2c"]);
    expect(await branch("u1")).toEqual({ branched: true, parentId: null });
    await ask("u1b");
    await answer("a1b");
  }

  it("a thread without versions is one straight active path, each message following the one before", async () => {
    await ask("u1");
    await answer("a1");
    await ask("u2");
    expect(await tree()).toEqual([
      { message_id: "u1", parent_message_id: null, chosen: true, active: true },
      { message_id: "a1", parent_message_id: "u1", chosen: true, active: true },
      { message_id: "u2", parent_message_id: "a1", chosen: true, active: true },
    ]);
    expect(await db.adapter.versions.versions({ owner, threadId })).toEqual([]);
  });

  it("regenerating twice and editing an earlier message keeps every version as siblings; every read follows the active path", async () => {
    await regenerateTwiceThenEdit();
    expect(await childrenOf("u2")).toEqual(["a2", "a2b", "a2c"]);
    expect(await childrenOf(null)).toEqual(["u1", "u1b"]);
    expect(await childrenOf("u1b")).toEqual(["a1b"]);
    await expectWholeTree();

    expect(await activeIds()).toEqual(["u1b", "a1b"]);
    expect((await db.repo.messages(owner, threadId)).map((m) => m.id)).toEqual(["u1b", "a1b"]);
    expect((await db.repo.flatHistory(owner, threadId)).map((m) => [m.id, m.content])).toEqual([
      ["u1b", "question u1b"],
      ["a1b", "answer a1b"],
    ]);
    expect(new Set((await db.repo.timeline(owner, threadId)).map((e) => e.messageId))).toEqual(new Set(["u1b", "a1b"]));
    expect((await db.repo.page(owner, threadId, { limit: 5 })).messages.map((m) => m.id)).toEqual(["u1b", "a1b"]);
    expect(await db.adapter.versions.versions({ owner, threadId })).toEqual([{ messageId: "u1b", versions: ["u1", "u1b"], position: 2 }]);
  });

  it("selecting a version switches every read and restores the choices made below it", async () => {
    await regenerateTwiceThenEdit();

    expect(await select("u1")).toBe(true);
    await expectWholeTree();
    // The third reply was the one chosen below u1: it comes back with it.
    expect(await activeIds()).toEqual(["u1", "a1", "u2", "a2c"]);
    expect(await db.adapter.versions.versions({ owner, threadId })).toEqual([
      { messageId: "u1", versions: ["u1", "u1b"], position: 1 },
      { messageId: "a2c", versions: ["a2", "a2b", "a2c"], position: 3 },
    ]);

    expect(await select("a2")).toBe(true);
    await expectWholeTree();
    expect(await activeIds()).toEqual(["u1", "a1", "u2", "a2"]);
    const page = await db.repo.page(owner, threadId, { limit: 2 });
    expect(page.messages.map((m) => m.id)).toEqual(["u2", "a2"]);
    const before = await db.repo.page(owner, threadId, { limit: 2, before: page.olderBefore! });
    expect(before.messages.map((m) => m.id)).toEqual(["u1", "a1"]);
    expect(before.olderBefore).toBeNull();
    expect(await db.adapter.get({ owner, threadId, lastUserMessages: 1 })).toMatchObject([{ id: "u2" }, { id: "a2" }]);
    expect(await db.adapter.turns.replyTo({ owner, threadId, messageId: "u2" })).toMatchObject({ message: { id: "u2" }, reply: { id: "a2" } });
    expect((await db.repo.search(owner, "aardvark", { limit: 5 })).results).toMatchObject([{ threadId, messageId: "a2" }]);
    expect((await db.repo.search(owner, "zebra", { limit: 5 })).results).toEqual([]);

    // A message off the path, deep in another branch, can be selected too: its ancestors come with it.
    expect(await select("a1b")).toBe(true);
    await expectWholeTree();
    expect(await activeIds()).toEqual(["u1b", "a1b"]);
    expect(await select("u1")).toBe(true);
    expect(await activeIds()).toEqual(["u1", "a1", "u2", "a2"]);
  });

  it("a new message follows the end of the active path, whichever version is selected", async () => {
    await regenerateTwiceThenEdit();
    await select("a2b");
    await ask("u3");
    await answer("a3");
    expect(await activeIds()).toEqual(["u1", "a1", "u2", "a2b", "u3", "a3"]);
    expect(await childrenOf("a2b")).toEqual(["u3"]);
    await expectWholeTree();
    await select("a2c");
    expect(await activeIds()).toEqual(["u1", "a1", "u2", "a2c"]);
    await select("a2b");
    expect(await activeIds()).toEqual(["u1", "a1", "u2", "a2b", "u3", "a3"]);
  });

  it("a branch with nothing stored after it leaves the path at the parent, and the old version can be selected back", async () => {
    await ask("u1");
    await answer("a1");
    await branch("a1");
    expect(await activeIds()).toEqual(["u1"]);
    await expectWholeTree();
    expect(await select("a1")).toBe(true);
    expect(await activeIds()).toEqual(["u1", "a1"]);
    await expectWholeTree();
  });

  it("a summary that left the active path is no longer the thread's latest; selecting its branch again brings it back", async () => {
    await ask("u1");
    await answer("a1");
    await ask("u2");
    await answer("a2");
    const stored = await db.adapter.summaries.append({
      owner,
      threadId,
      after: null,
      summary: { id: "summary-1", text: "They talked.", throughSeq: 4, summarizedMessages: 2 },
    });
    await ask("u3");
    expect((await db.adapter.summaries.latest({ owner, threadId }))?.id).toBe("summary-1");
    expect(await childrenOf("summary-1")).toEqual(["u3"]);

    await branch("a2");
    await expectWholeTree();
    expect(await db.adapter.summaries.latest({ owner, threadId })).toBeNull();
    expect((await db.adapter.createThread({ owner, threadId })).summary).toBeUndefined();
    // A compaction written after the summary that left the path finds it is not the latest, and stores nothing.
    await answer("a2b");
    expect(await db.adapter.summaries.append({ owner, threadId, after: stored!.seq, summary: { id: "summary-x", text: "-", throughSeq: 2, summarizedMessages: 1 } })).toBeNull();

    await select("a2");
    await expectWholeTree();
    expect((await db.adapter.summaries.latest({ owner, threadId }))?.id).toBe("summary-1");
    expect((await db.adapter.get({ owner, threadId }, { systemMessages: true })).map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2", "summary-1", "u3"]);
  });

  it("a compaction planned before the path changed stores nothing: what it stands for is no longer on the path", async () => {
    await ask("u1");
    await answer("a1");
    await ask("u2");
    await answer("a2");
    // Planned over u1 a1 u2 (seq 1 to 4); meanwhile u2 is edited.
    await branch("u2");
    await ask("u2b");
    const late = { id: "summary-late", text: "They talked.", throughSeq: 4, summarizedMessages: 3 };
    expect(await db.adapter.summaries.append({ owner, threadId, after: null, summary: late })).toBeNull();
    expect(await db.adapter.summaries.latest({ owner, threadId })).toBeNull();
    // Planned over u1 a1 only, which the path still holds: it lands.
    const early = { id: "summary-early", text: "They said hi.", throughSeq: 3, summarizedMessages: 2 };
    expect(await db.adapter.summaries.append({ owner, threadId, after: null, summary: early })).not.toBeNull();
    expect((await db.adapter.summaries.latest({ owner, threadId }))?.id).toBe("summary-early");
    expect(await childrenOf("u2b")).toEqual(["summary-early"]);
    await expectWholeTree();
  });

  it("a failed turn of a message that was edited away is no longer the thread's pending one; selecting it back makes it so again", async () => {
    await ask("u1");
    await answer("a1");
    const opened = await db.adapter.turns.openTurn({
      owner, threadId, messageId: "u2", turnId: "turn-u2", leaseMs: 60_000, message: { id: "u2", role: "user", content: "unanswered" },
    });
    expect(opened).toMatchObject({ claim: { claimed: true }, messages: 2 });
    await db.adapter.turns.finishTurn({ owner, messageId: "u2", turnId: "turn-u2", status: "failed" });
    expect(await db.repo.pendingTurn(owner, threadId)).toEqual({ messageId: "u2", state: "interrupted" });

    await branch("u2");
    await ask("u2b");
    await answer("a2b");
    expect(await db.repo.pendingTurn(owner, threadId)).toBeNull();
    expect(await childrenOf("a1")).toEqual(["u2", "u2b"]);

    await select("u2");
    expect(await activeIds()).toEqual(["u1", "a1", "u2"]);
    expect(await db.repo.pendingTurn(owner, threadId)).toEqual({ messageId: "u2", state: "interrupted" });
    await expectWholeTree();
  });

  describe("refusals: nothing is written", () => {
    /** Every row of both threads, and the threads' counters, to compare before and after. */
    const snapshot = async (...threads: string[]) =>
      (
        await db.pool.query(
          `SELECT m.thread_id, m.seq, m.message_id, m.parent_message_id, m.chosen, m.active, t.message_count, t.next_seq, t.summary_seq
             FROM messages m JOIN threads t ON t.id = m.thread_id WHERE m.thread_id = ANY ($1::uuid[]) ORDER BY m.thread_id, m.seq`,
          [threads],
        )
      ).rows;

    it("another owner cannot branch or select in the thread", async () => {
      await regenerateTwiceThenEdit();
      const before = await snapshot(threadId);
      const intruder = { owner: `intruder-${randomUUID()}`, threadId };
      expect(await branch("a1b", intruder)).toBeNull();
      expect(await select("u1", intruder)).toBe(false);
      expect(await db.adapter.versions.versions(intruder)).toEqual([]);
      expect(await snapshot(threadId)).toEqual(before);
    });

    it("a message of another thread (even the owner's own) is not found in this one", async () => {
      await regenerateTwiceThenEdit();
      const other = (await db.adapter.createThread({ owner })).threadId;
      await db.adapter.appendUserMessage({ owner, threadId: other, turnId: "t-x", message: { id: "elsewhere", role: "user", content: "hi" } });
      const before = await snapshot(threadId, other);
      expect(await branch("elsewhere")).toBeNull();
      expect(await select("elsewhere")).toBe(false);
      expect(await branch("u1", { owner, threadId: other })).toBeNull();
      expect(await select("a2", { owner, threadId: other })).toBe(false);
      expect(await branch("no-such-message")).toBeNull();
      expect(await snapshot(threadId, other)).toEqual(before);
    });
  });

  it("two regenerates of one reply at once store one new version: the second branch finds the reply off the path", async () => {
    await ask("u1");
    await answer("a1");
    const regenerate = async (id: string) => {
      const branched = await branch("a1");
      if (branched?.branched) await answer(id);
      return branched;
    };
    const outcomes = await Promise.all([regenerate("again-1"), regenerate("again-2")]);
    expect(outcomes.map((o) => o?.branched).sort()).toEqual([false, true]);
    expect(outcomes.every((o) => o?.parentId === "u1")).toBe(true);
    const children = await childrenOf("u1");
    expect(children).toHaveLength(2);
    expect(children[0]).toBe("a1");
    expect(await activeIds()).toEqual(["u1", children[1]]);
    await expectWholeTree();
  });

  it("an append while another branches at once never breaks the path", async () => {
    await ask("u1");
    await answer("a1");
    await ask("u2");
    await Promise.all([branch("u2"), answer("a2"), select("a1")]);
    await expectWholeTree();
    const path = await activeIds();
    expect(path.slice(0, 2)).toEqual(["u1", "a1"]);
  });
});

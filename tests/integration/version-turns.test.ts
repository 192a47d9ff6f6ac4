import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { chatTurn, params, replyParts, request, signaturesIn, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as flat from "@/app/api/threads/[id]/history/route";
import { integrationApp } from "../support/integration";

// Regenerate and edit as turns, through the chat route on the inline runtime,
// with the real provider code talking to the mock model server: a [[nth]]
// message is answered "(answer N)" the Nth time, so every version of a reply
// differs. The stored tree is read as rows; what the model was given is the
// mock's record of each request.
const t = integrationApp();
const adapter = new PostgresHistoryAdapter(t.pool);

type Sent = { messages: { role: string; content: unknown }[] };
const turn = (body: Record<string, unknown>, cookie = t.me.cookie) => chatTurn(chat, body, cookie);
const msg = (content: string) => ({ id: randomUUID(), content });
const replyId = (chunks: UIMessageChunk[]) => (chunks.find((c) => c.type === "start") as { messageId: string }).messageId;

/** What the model was given on the latest request: role and text of each message after the instructions. */
function lastModelInput(): string[] {
  const body = t.mock.requests.at(-1) as Sent;
  return body.messages
    .filter((m) => m.role !== "system")
    .map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((p) => p.text ?? "").join("")}`);
}

async function tree(threadId: string) {
  const { rows } = await t.pool.query<{ message_id: string; parent_message_id: string | null; active: boolean; kind: string }>(
    "SELECT message_id, parent_message_id, active, kind FROM messages WHERE thread_id = $1 AND part_index = 0 ORDER BY seq",
    [threadId],
  );
  return rows;
}
const childrenOf = async (threadId: string, parent: string | null) =>
  (await tree(threadId)).filter((r) => r.parent_message_id === parent).map((r) => r.message_id);
const pathIds = async (threadId: string) => (await adapter.get({ owner: t.me.id, threadId })).map((m) => m.id);

async function flatHistory(threadId: string) {
  const response = await flat.GET(request(`/api/threads/${threadId}/history`, { cookie: t.me.cookie }), params(threadId));
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: { id: string; content: string }[] }).messages;
}

/** A thread of two exchanges; every message carries [[nth]], so each answer is told apart. */
async function twoExchanges() {
  // The mock counts answers per text: each thread's texts are its own.
  const tag = randomUUID().slice(0, 8);
  const first = msg(`First question ${tag} [[nth]]`);
  const a = await turn({ message: first });
  const threadId = a.threadId!;
  const second = msg(`Second question ${tag} [[nth]]`);
  const b = await turn({ threadId, message: second });
  return { threadId, first, firstReply: replyId(a.chunks), firstText: a.text, second, secondReply: replyId(b.chunks), secondText: b.text };
}

describe("regenerate and edit, as turns", () => {
  it("keeps every version: regenerate twice, edit an earlier message, and every read follows the active path", async () => {
    const { threadId, first, firstReply, second, secondReply, secondText } = await twoExchanges();
    expect(secondText).toBe(echoReply(second.content, 2, 1) + " (answer 1)");

    const again = await turn({ threadId, message: second, replaces: secondReply });
    expect(again.response.status).toBe(200);
    expect(again.text).toBe(echoReply(second.content, 2, 1) + " (answer 2)");
    // The model read the thread up to the question: not the reply it replaces.
    expect(lastModelInput()).toEqual([`user: ${first.content}`, `assistant: ${echoReply(first.content, 1, 0)} (answer 1)`, `user: ${second.content}`]);
    const third = await turn({ threadId, message: second, replaces: replyId(again.chunks) });
    expect(third.text).toBe(echoReply(second.content, 2, 1) + " (answer 3)");
    const thirdReply = replyId(third.chunks);

    expect(await childrenOf(threadId, second.id)).toEqual([secondReply, replyId(again.chunks), thirdReply]);
    expect(await pathIds(threadId)).toEqual([first.id, firstReply, second.id, thirdReply]);
    expect(await adapter.versions.versions({ owner: t.me.id, threadId })).toEqual([
      { messageId: thirdReply, versions: [secondReply, replyId(again.chunks), thirdReply], position: 3 },
    ]);

    // Edit the first message: a sibling of it, answered anew from an empty thread.
    const edited = msg("First question, edited [[nth]]");
    const edit = await turn({ threadId, message: edited, replaces: first.id });
    expect(edit.response.status).toBe(200);
    expect(edit.text).toBe(echoReply(edited.content, 1, 0) + " (answer 1)");
    expect(lastModelInput()).toEqual([`user: ${edited.content}`]);
    const editReply = replyId(edit.chunks);
    expect(await childrenOf(threadId, null)).toEqual([first.id, edited.id]);
    expect(await pathIds(threadId)).toEqual([edited.id, editReply]);
    expect((await flatHistory(threadId)).map((m) => m.id)).toEqual([edited.id, editReply]);

    // The next turn reads the active path exactly.
    const next = msg("Next [[nth]]");
    await turn({ threadId, message: next });
    expect(lastModelInput()).toEqual([`user: ${edited.content}`, `assistant: ${edit.text}`, `user: ${next.content}`]);

    // Back to the first version: the path below it is as it was left, the third reply chosen.
    expect(await adapter.versions.select({ owner: t.me.id, threadId, messageId: first.id })).toBe(true);
    expect(await pathIds(threadId)).toEqual([first.id, firstReply, second.id, thirdReply]);
    expect((await flatHistory(threadId)).map((m) => m.content)).toEqual([
      first.content,
      `${echoReply(first.content, 1, 0)} (answer 1)`,
      second.content,
      third.text,
    ]);
    const after = msg("After switching [[nth]]");
    await turn({ threadId, message: after });
    expect(lastModelInput()).toEqual([
      `user: ${first.content}`,
      `assistant: ${echoReply(first.content, 1, 0)} (answer 1)`,
      `user: ${second.content}`,
      `assistant: ${third.text}`,
      `user: ${after.content}`,
    ]);
  });

  it("uses the client's signed copy of a path with versions beside it, and never a copy spliced from two versions", async () => {
    const first = msg("Copy first [[nth]]");
    const a = await turn({ message: first });
    const threadId = a.threadId!;
    const signedA = signaturesIn(a.chunks);
    const aReply = replyId(a.chunks);
    const copyA = [
      { id: first.id, role: "user", parts: [{ type: "text", text: first.content }], ...signedA.get(first.id) },
      { id: aReply, role: "assistant", parts: await replyParts(a.chunks), ...signedA.get(aReply) },
    ];
    const second = msg("Copy second [[nth]]");
    const b = await turn({ threadId, message: second, history: copyA });
    expect(b.response.headers.get("x-history-source")).toBe("client");

    // Regenerate the second reply, sending what comes before its question.
    const regenerated = await turn({ threadId, message: second, replaces: replyId(b.chunks), history: copyA });
    expect(regenerated.response.headers.get("x-history-source")).toBe("client");
    expect(regenerated.text).toContain("(answer 2)");

    // Edit the second message; then go on from the new branch with its signed copy: seqs now leave a gap.
    const edited = msg("Copy second, edited [[nth]]");
    const edit = await turn({ threadId, message: edited, replaces: second.id, history: copyA });
    expect(edit.response.headers.get("x-history-source")).toBe("client");
    const signedE = signaturesIn(edit.chunks);
    const eReply = replyId(edit.chunks);
    const copyE = [
      ...copyA,
      { id: edited.id, role: "user", parts: [{ type: "text", text: edited.content }], ...signedE.get(edited.id) },
      { id: eReply, role: "assistant", parts: await replyParts(edit.chunks), ...signedE.get(eReply) },
    ];
    const third = msg("Copy third [[nth]]");
    const c = await turn({ threadId, message: third, history: copyE });
    expect(c.response.headers.get("x-history-source")).toBe("client");
    expect(lastModelInput()).toEqual([
      `user: ${first.content}`,
      `assistant: ${a.text}`,
      `user: ${edited.content}`,
      `assistant: ${edit.text}`,
      `user: ${third.content}`,
    ]);

    // The first version's question and the new version's reply, each signed, do not make a copy.
    const signedB = signaturesIn(b.chunks);
    const spliced = [
      ...copyA,
      { id: second.id, role: "user", parts: [{ type: "text", text: second.content }], ...signedB.get(second.id) },
      { id: eReply, role: "assistant", parts: await replyParts(edit.chunks), ...signedE.get(eReply) },
    ];
    // Cut the path after the edited reply, so that the splice ends where the next message follows.
    expect(await adapter.versions.branch({ owner: t.me.id, threadId, messageId: third.id })).toEqual({ branched: true, parentId: eReply });
    const honest = await turn({ threadId, message: msg("After the edit [[nth]]"), history: copyE });
    expect(honest.response.headers.get("x-history-source")).toBe("client");
    expect(await adapter.versions.branch({ owner: t.me.id, threadId, messageId: [...signaturesIn(honest.chunks).keys()][0] })).toMatchObject({ branched: true });
    const d = await turn({ threadId, message: msg("After a splice [[nth]]"), history: spliced });
    expect(d.response.headers.get("x-history-source")).toBe("database");
  });

  it("stores one new version for a regenerate sent twice at once", async () => {
    const { threadId, second, secondReply } = await twoExchanges();
    const [one, two] = await Promise.all([
      turn({ threadId, message: second, replaces: secondReply }),
      turn({ threadId, message: second, replaces: secondReply }),
    ]);
    // One is answered; the other is refused while it runs, or answered with what it stored.
    const statuses = [one.response.status, two.response.status].sort();
    expect(statuses[0]).toBe(200);
    expect([200, 409]).toContain(statuses[1]);
    expect(await childrenOf(threadId, second.id)).toHaveLength(2);
    // Sent again later, it names a reply no longer on the path.
    const late = await turn({ threadId, message: second, replaces: secondReply });
    expect(late.response.status).toBe(409);
    expect(late.error?.error.code).toBe("conflict:version_changed");
    expect(await childrenOf(threadId, second.id)).toHaveLength(2);
  });

  it("answers an edit sent twice once", async () => {
    const { threadId, first, firstText } = await twoExchanges();
    const edited = msg("Edited once [[nth]]");
    const one = await turn({ threadId, message: edited, replaces: first.id });
    const two = await turn({ threadId, message: edited, replaces: first.id });
    expect(two.response.status).toBe(200);
    expect(two.text).toBe(one.text);
    expect(await childrenOf(threadId, null)).toEqual([first.id, edited.id]);
    expect(await childrenOf(threadId, edited.id)).toHaveLength(1);
    // The message it replaced, sent again (a tab that missed the edit), gets the reply it had: nothing is stored or asked.
    const calls = t.mock.requests.length;
    const rows = (await tree(threadId)).length;
    const resent = await turn({ threadId, message: first });
    expect(resent.response.status).toBe(200);
    expect(resent.text).toBe(firstText);
    expect(t.mock.requests.length).toBe(calls);
    expect(await tree(threadId)).toHaveLength(rows);
  });

  it("refuses a message that is not in the thread, another identity's thread, or a reply to another message, writing nothing", async () => {
    const { threadId, first, second, secondReply } = await twoExchanges();
    const other = await twoExchanges();
    const before = await tree(threadId);

    const foreign = await turn({ threadId, message: msg("Edit with a stranger's id"), replaces: other.first.id });
    expect(foreign.response.status).toBe(404);
    expect(foreign.error?.error.code).toBe("not_found:message");

    const stranger = await visitor();
    const theirs = await turn({ threadId, message: second, replaces: secondReply }, stranger.cookie);
    expect(theirs.response.status).toBe(404);
    expect(theirs.error?.error.code).toBe("not_found:thread");

    const wrongQuestion = await turn({ threadId, message: first, replaces: secondReply });
    expect(wrongQuestion.response.status).toBe(400);
    expect(wrongQuestion.error?.error.message).toMatch(/does not answer/);

    const sameId = await turn({ threadId, message: first, replaces: first.id });
    expect(sameId.response.status).toBe(400);

    const noThread = await turn({ message: msg("Which thread?"), replaces: first.id });
    expect(noThread.response.status).toBe(400);
    expect(noThread.error?.error.message).toMatch(/threadId/);

    expect(await tree(threadId)).toEqual(before);
  });

  it("keeps the earlier reply answering its message when a regenerate fails", async () => {
    const { threadId, second, secondReply } = await twoExchanges();
    const turnId = randomUUID();
    await t.pool.query("UPDATE turns SET turn_id = $3, status = 'running' WHERE owner = $1 AND message_id = $2", [t.me.id, second.id, turnId]);
    // The regenerate's runner gives up with nothing stored: the message is still answered by its reply.
    await adapter.turns.finishTurn({ owner: t.me.id, messageId: second.id, turnId, status: "failed" });
    const { rows } = await t.pool.query("SELECT status FROM turns WHERE owner = $1 AND message_id = $2", [t.me.id, second.id]);
    expect(rows[0].status).toBe("done");
    const resent = await turn({ threadId, message: second });
    expect(replyId(resent.chunks)).toBe(secondReply);
    expect(await childrenOf(threadId, second.id)).toEqual([secondReply]);
  });
});

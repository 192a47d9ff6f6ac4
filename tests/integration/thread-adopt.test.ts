import { createHash, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { FileStore } from "@/lib/files/file-store";
import type { UploadedFile } from "@/lib/protocol/files";
import { databaseTargets, onDatabase } from "../support/db-targets";

const textFile = (text: string) => {
  const content = Buffer.from(text);
  return { name: "notes.txt", mediaType: "text/plain" as const, content, sha256: createHash("sha256").update(content).digest() };
};

// Adopting: an owner (a guest) hands everything to another (the account they
// sign in to). Every wing's rows follow in one transaction, and a file the
// account already holds is not kept twice.
describe.each(databaseTargets())("adopting an owner's threads, on the $name", (target) => {
  const db = onDatabase(target);
  let files: FileStore;
  beforeAll(() => {
    files = new FileStore(db.pool);
  });

  /** A thread of the owner's whose first message carries the files. */
  async function threadWith(owner: string, text: string, carried: UploadedFile[]) {
    const threadId = randomUUID();
    const id = randomUUID();
    const turn = { messageId: id, turnId: `turn-${id}` };
    const message = { id, role: "user" as const, content: text, files: carried.map((f) => ({ type: "file" as const, fileId: f.id, name: f.name, mediaType: f.mediaType, size: f.size })) };
    await db.adapter.turns.openTurn({ owner, threadId, ...turn, message, leaseMs: null });
    await db.adapter.appendResults({ owner, threadId, reply: { id: `${id}-reply`, role: "assistant", status: "complete", parts: [{ type: "text", text: `re: ${text}` }] }, turn });
    return { threadId, messageId: id };
  }

  it("moves the threads, their turns, files and reminders; a file the account holds already is named instead of kept twice", async () => {
    const guest = `guest-${randomUUID()}`;
    const account = `account-${randomUUID()}`;
    const shared = textFile(`the same bytes ${randomUUID()}`);
    const own = textFile(`the guest's alone ${randomUUID()}`);
    const accountCopy = await files.save(account, shared);
    const guestCopy = await files.save(guest, shared);
    const guestOwn = await files.save(guest, own);
    await threadWith(account, "the account's own thread", [accountCopy]);
    const made = await threadWith(guest, "the guest's thread", [guestCopy, guestOwn]);
    await db.pool.query(
      "INSERT INTO reminders (id, thread_id, owner, text, due_at, time_zone, next_look_at) VALUES ($1, $2, $3, 'stretch', now() + interval '1 day', 'UTC', now() + interval '1 day')",
      [randomUUID(), made.threadId, guest],
    );

    await db.repo.adopt(guest, account);

    expect((await db.repo.list(guest, { limit: 10 })).threads).toEqual([]);
    const listed = (await db.repo.list(account, { limit: 10 })).threads;
    expect(listed.map((t) => t.id)).toContain(made.threadId);
    expect(listed.find((t) => t.id === made.threadId)!.reminderCount).toBe(1);
    // The account reads the thread, its message naming the account's copy of the shared file and the guest's other file, now the account's.
    const [first] = await db.repo.messages(account, made.threadId);
    const carried = first.parts.flatMap((part) => (part.type === "file" ? [part.fileId] : []));
    expect(carried).toEqual([accountCopy.id, guestOwn.id]);
    for (const fileId of carried) expect(await files.download(account, fileId)).toBeDefined();
    const { rows: left } = await db.pool.query("SELECT id FROM files WHERE owner = $1", [guest]);
    expect(left).toEqual([]);
    const { rows: copies } = await db.pool.query("SELECT count(*)::int AS n FROM files WHERE owner = $1 AND sha256 = $2", [account, shared.sha256]);
    expect(copies[0].n).toBe(1);
    const { rows: reminders } = await db.pool.query("SELECT owner FROM reminders WHERE thread_id = $1", [made.threadId]);
    expect(reminders).toEqual([{ owner: account }]);
    // The turn record followed: the message is the account's, and sending it again is a duplicate of it, not a new turn.
    const { rows: turns } = await db.pool.query("SELECT owner FROM turns WHERE message_id = $1", [made.messageId]);
    expect(turns).toEqual([{ owner: account }]);
  });

  it("adopting oneself, or an owner with nothing, changes nothing", async () => {
    const owner = `owner-${randomUUID()}`;
    const made = await threadWith(owner, "mine", []);
    await db.repo.adopt(owner, owner);
    await db.repo.adopt(`nobody-${randomUUID()}`, owner);
    expect((await db.repo.list(owner, { limit: 10 })).threads.map((t) => t.id)).toEqual([made.threadId]);
  });
});

import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { chatTurn, params, request, visitor } from "../support/api";
import { testPool } from "../support/db";
import { busyPage, flatePdf, pdfBomb, solidPng, textPage } from "../support/files";
import * as chat from "@/app/api/chat/route";
import * as upload from "@/app/api/files/route";
import * as download from "@/app/api/files/[id]/route";
import * as textRoute from "@/app/api/files/[id]/text/route";
import type { FileTextState } from "@/lib/protocol/files";
import { integrationApp } from "../support/integration";
import { putFile, uploadedFile } from "../support/uploads";

// The bounds of the Files wing: a PDF's text is read off the request path
// within limits (the upload answers at once; the server serves meanwhile);
// a turn reads only the bytes its model takes; an identity's files stay
// within STORAGE_QUOTA_MB, however many uploads arrive at once.

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

const textState = async (cookie: string, id: string): Promise<FileTextState | null> => {
  const response = await textRoute.GET(request(`/api/files/${id}/text`, { cookie }), params(id));
  expect(response.status).toBe(200);
  return ((await response.json()) as { textState: FileTextState | null }).textState;
};

/** Follows a PDF's text as the composer does, until it is no longer pending. */
async function settled(cookie: string, id: string): Promise<FileTextState | null> {
  for (let i = 0; i < 600; i++) {
    const state = await textState(cookie, id);
    if (state !== "pending") return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the text of ${id} is still pending after a minute`);
}

type Sent = { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] };

const MODELS = {
  MODEL_PROVIDER: "",
  MODEL: "",
  MODELS: "openai-compatible:vision-mock=Sees, openai-compatible:text-mock=Blind",
  MODELS_WITH_IMAGES: "openai-compatible:vision-mock",
};

describe("a PDF's text, read off the request path", () => {
  const t = integrationApp({ settings: { ...MODELS, ATTACHMENT_MAX_MB: "2" } });
  const lastUserTexts = () => {
    const body = t.mock.requests.at(-1) as { messages: Sent[] };
    const content = body.messages.filter((m) => m.role === "user").at(-1)!.content;
    return typeof content === "string" ? [content] : content.flatMap((part) => (part.text === undefined ? [] : [part.text]));
  };

  it("answers a PDF bomb's upload at once, refuses its text within the bounds, and serves the server's other requests meanwhile", async () => {
    const me = await visitor();
    // A few kilobytes whose content stream inflates to 64 MB.
    const bomb = await uploadedFile(me.cookie, "bomb.pdf", pdfBomb(64 * 1024 * 1024));
    expect(bomb).toMatchObject({ mediaType: "application/pdf", textState: "pending" });
    // Within every bound, but seconds of PDF.js's work: the server's other requests are answered while it runs.
    const slow = await uploadedFile(me.cookie, "busy.pdf", flatePdf([busyPage(8 * 1024 * 1024)]));
    expect(slow.textState).toBe("pending");

    const notes = await uploadedFile(me.cookie, "notes.txt", "The meeting moved to Thursday.");
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "Read this", files: [{ id: notes.id }] }, model: "openai-compatible:text-mock" }, me.cookie);
    expect(turn.response.status).toBe(200);
    expect(turn.text.length).toBeGreaterThan(0);
    expect((await download.GET(request(`/api/files/${notes.id}`, { cookie: me.cookie }), params(notes.id))).status).toBe(200);
    // All of that was served while the busy PDF's text was still being read.
    expect(await textState(me.cookie, slow.id)).toBe("pending");

    expect(await settled(me.cookie, bomb.id)).toBe("failed");
    await chatTurn(chat, { threadId: turn.threadId, message: { id: randomUUID(), content: "And this?", files: [{ id: bomb.id }] }, model: "openai-compatible:text-mock" }, me.cookie);
    expect(lastUserTexts()).toContain(
      `[Attached file: bomb.pdf (PDF, ${(bomb.size / 1024).toFixed(0)} KB): a PDF whose text could not be read within this server's limits, so only its name is given]`,
    );
    expect(await settled(me.cookie, slow.id)).toBe("done");
  });

  it("gives a turn that sends a PDF right after its upload the PDF's text", async () => {
    const me = await visitor();
    const pdf = await uploadedFile(me.cookie, "memo.pdf", flatePdf([textPage("The budget is approved")]));
    await chatTurn(chat, { message: { id: randomUUID(), content: "Summarize", files: [{ id: pdf.id }] }, model: "openai-compatible:text-mock" }, me.cookie);
    expect(lastUserTexts().some((text) => text.startsWith("[Attached file: memo.pdf (PDF,") && text.includes("The budget is approved"))).toBe(true);
  });

  it("has another server take over a PDF whose server died reading it, and gives up on one that ended three", async () => {
    const me = await visitor();
    const orphan = await uploadedFile(me.cookie, "orphan.pdf", flatePdf([textPage("Left behind")]));
    const deadly = await uploadedFile(me.cookie, "deadly.pdf", flatePdf([textPage("Never read")]));
    await settled(me.cookie, orphan.id);
    await settled(me.cookie, deadly.id);
    // As a server that took them and died leaves them: pending, their lease passed.
    await t.pool.query(
      `UPDATE files SET text_state = 'pending', extracted_text = NULL, text_lease_until = now() - interval '1 second',
              text_attempts = CASE WHEN id = $2 THEN 3 ELSE 1 END WHERE id = ANY($1::uuid[])`,
      [[orphan.id, deadly.id], deadly.id],
    );
    await chatTurn(chat, { message: { id: randomUUID(), content: "Both", files: [{ id: orphan.id }, { id: deadly.id }] }, model: "openai-compatible:text-mock" }, me.cookie);
    const texts = lastUserTexts();
    expect(texts.some((text) => text.startsWith("[Attached file: orphan.pdf") && text.includes("Left behind"))).toBe(true);
    expect(texts.some((text) => text.startsWith("[Attached file: deadly.pdf") && text.includes("whose text could not be read"))).toBe(true);
  });
});

describe("the bytes a turn reads", () => {
  /** The bytes of files' contents the app's queries brought back. */
  let bytesRead = 0;
  const counted = testPool();
  const query = counted.query.bind(counted) as (...args: unknown[]) => Promise<pg.QueryResult>;
  (counted as { query: unknown }).query = async (...args: unknown[]) => {
    const result = await query(...args);
    const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
    if (text?.includes("FROM files")) {
      for (const row of result.rows ?? []) for (const value of Object.values(row)) if (Buffer.isBuffer(value)) bytesRead += value.length;
    }
    return result;
  };
  const turnReads = async (cookie: string, body: object) => {
    bytesRead = 0;
    const turn = await chatTurn(chat, body, cookie);
    expect(turn.response.status).toBe(200);
    return { threadId: turn.threadId!, bytes: bytesRead };
  };

  // Ended after the app (hooks after run in reverse): the app does not end a pool it was given.
  afterAll(() => counted.end());
  const t = integrationApp({ settings: MODELS, parts: { pool: counted } });
  beforeEach(() => {
    bytesRead = 0;
  });

  it("reads no image bytes for a model that cannot see images, never a PDF's, and each file's once for a model that sees them", async () => {
    const me = await visitor();
    const red = await uploadedFile(me.cookie, "red.png", solidPng("#ff0000", 64, 64));
    const blue = await uploadedFile(me.cookie, "blue.png", solidPng("#0000ff", 48, 48));
    const pdf = await uploadedFile(me.cookie, "brief.pdf", flatePdf([textPage("Ship on Monday")]));
    const notes = await uploadedFile(me.cookie, "notes.txt", "Bring the slides.");
    await settled(me.cookie, pdf.id);
    const files = [{ id: red.id }, { id: blue.id }, { id: pdf.id }, { id: notes.id }];

    const first = await turnReads(me.cookie, { message: { id: randomUUID(), content: "Here", files }, model: "openai-compatible:text-mock" });
    expect(first.bytes).toBe(notes.size);
    const threadId = first.threadId;
    // A later turn of the blind model reads the earlier files' text again, and still no image.
    const blind = await turnReads(me.cookie, { threadId, message: { id: randomUUID(), content: "And?" }, model: "openai-compatible:text-mock" });
    expect(blind.bytes).toBe(notes.size);
    // The model that sees: each image once, though the new message carries the red one again.
    const seeing = await turnReads(me.cookie, { threadId, message: { id: randomUUID(), content: "Again", files: [{ id: red.id }] }, model: "openai-compatible:vision-mock" });
    expect(seeing.bytes).toBe(red.size + blue.size + notes.size);
  });

  it("reads no bytes of files in messages outside the model's window", async () => {
    const me = await visitor();
    const image = await uploadedFile(me.cookie, "plot.png", solidPng("#00aa00", 64, 64));
    const notes = await uploadedFile(me.cookie, "old.txt", "An old note.");
    const first = await turnReads(me.cookie, { message: { id: randomUUID(), content: "Old files", files: [{ id: image.id }, { id: notes.id }] }, model: "openai-compatible:vision-mock" });
    expect(first.bytes).toBe(image.size + notes.size);
    const windowed = await turnReads(me.cookie, {
      threadId: first.threadId,
      message: { id: randomUUID(), content: "Only this one" },
      model: "openai-compatible:vision-mock",
      historyPolicy: "lastN",
      historyLength: 1,
    });
    expect(windowed.bytes).toBe(0);
  });
});

describe("the storage quota", () => {
  const t = integrationApp({ model: "offline", settings: { STORAGE_QUOTA_MB: "1", ATTACHMENT_MAX_MB: "1" } });
  const KB = 1024;
  /** Distinct bytes of `size`: text, each upload its own content. */
  const textOf = (size: number) => `${randomUUID()}\n`.padEnd(size, "x");

  const used = async (owner: string) => Number((await t.pool.query("SELECT coalesce(sum(size), 0) AS n FROM files WHERE owner = $1", [owner])).rows[0].n);

  it("refuses an upload past STORAGE_QUOTA_MB with a 413 that says how much is used, before its body when it declares its size", async () => {
    const me = await visitor();
    const first = textOf(600 * KB);
    await uploadedFile(me.cookie, "first.txt", first);
    const second = textOf(600 * KB);
    const refused = await putFile(me.cookie, "second.txt", second);
    expect(refused.status).toBe(413);
    expect(await errorOf(refused)).toEqual({
      code: "payload_too_large:quota",
      message: "Your files take 600 KB of your 1.0 MB of storage, and this one (600 KB) would pass it: delete threads whose files you no longer need, then attach it again.",
    });
    // Declared: refused before a byte of the body is read (this body could not be read at all).
    const unreadable = new ReadableStream<Uint8Array>({
      pull() {
        throw new Error("the body was read");
      },
    });
    const declared = await upload.POST(
      new Request("http://localhost/api/files", {
        method: "POST",
        headers: { cookie: me.cookie, "x-file-name": "third.txt", "content-length": String(600 * KB) },
        body: unreadable,
        duplex: "half",
      } as RequestInit),
      undefined as never,
    );
    expect(declared.status).toBe(413);
    expect((await errorOf(declared)).code).toBe("payload_too_large:quota");
    // The same bytes again take no more room.
    expect((await putFile(me.cookie, "first again.txt", first)).status).toBe(201);
    expect(await used(me.id)).toBe(600 * KB);
  });

  it("lets uploads arriving at once take no more than the room left", async () => {
    const me = await visitor();
    await uploadedFile(me.cookie, "base.txt", textOf(600 * KB));
    // Room for one of these five, whichever is stored first.
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => putFile(me.cookie, `n${n}.txt`, textOf(300 * KB))));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 413, 413, 413, 413]);
    expect(await used(me.id)).toBe(900 * KB);
  });
});

import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { chatTurn, params, replyParts, request, signaturesIn, visitor } from "../support/api";
import { solidPng, textPdf } from "../support/files";
import * as chat from "@/app/api/chat/route";
import * as upload from "@/app/api/files/route";
import * as download from "@/app/api/files/[id]/route";
import * as threadRoute from "@/app/api/threads/[id]/route";
import * as messagesRoute from "@/app/api/threads/[id]/messages/route";
import * as timelineRoute from "@/app/api/threads/[id]/timeline/route";
import * as exportRoute from "@/app/api/threads/[id]/export/route";
import * as importRoute from "@/app/api/threads/import/route";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import type { ThreadResponse } from "@/lib/protocol/threads";
import type { MessagesPage, TimelineEntry } from "@/lib/protocol/threads";
import type { FilePart, Part } from "@threadline/history/parts";
import { integrationApp } from "../support/integration";
import { putFile, uploadedFile } from "../support/uploads";

// Files in a conversation: uploaded before the message, typed by their bytes
// (never by their name), stored once per owner and content, read back by
// their owner only, carried by the message as parts of its own, given to the
// model as it can take them, and gone with the last thread that names them
// (or a day after an upload nobody sent).

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

const get = (cookie: string, id: string) => download.GET(request(`/api/files/${id}`, { cookie }), params(id));

describe("attachments", () => {
  const t = integrationApp({
    settings: {
      MODEL_PROVIDER: "",
      MODEL: "",
      // One model that sees images and one that does not, both the mock behind the real provider code.
      MODELS: "openai-compatible:vision-mock=Sees, openai-compatible:text-mock=Blind, offline:threadline-offline",
      MODELS_WITH_IMAGES: "openai-compatible:vision-mock",
      ATTACHMENT_MAX_MB: "1",
      // Compaction early, for the summary's file lines; no other test here grows a thread past it.
      COMPACTION_MAX_MESSAGES: "6",
      COMPACTION_TARGET_MESSAGES: "4",
      COMPACTION_KEEP_TURNS: "1",
    },
  });

  const fileRows = async (owner: string) => (await t.pool.query("SELECT id, media_type, size FROM files WHERE owner = $1 ORDER BY uploaded_at", [owner])).rows;
  type Sent = { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] };
  const lastUserContent = () => {
    const body = t.mock.requests.at(-1) as { messages: Sent[] };
    return body.messages.filter((m) => m.role === "user").at(-1)!.content;
  };

  describe("an upload is typed by its bytes", () => {
    it("takes a PNG named .pdf as the PNG it is, and Markdown, CSV, JSON and text by their names once the bytes are text", async () => {
      const me = await visitor();
      expect(await uploadedFile(me.cookie, "scan.pdf", solidPng())).toMatchObject({ name: "scan.pdf", mediaType: "image/png", size: solidPng().length });
      expect((await uploadedFile(me.cookie, "notes.md", "# Plan\n- one")).mediaType).toBe("text/markdown");
      expect((await uploadedFile(me.cookie, "table.csv", "a,b\n1,2\n")).mediaType).toBe("text/csv");
      expect((await uploadedFile(me.cookie, "data.json", '{"a": 1}')).mediaType).toBe("application/json");
      expect((await uploadedFile(me.cookie, "script.sh", "#!/bin/sh\necho hi\n")).mediaType).toBe("text/plain");
      expect((await uploadedFile(me.cookie, "paper.pdf", textPdf("Quarterly results"))).mediaType).toBe("application/pdf");
    });

    it("refuses a script named .png, invalid JSON, an empty file, a binary of another kind and a file over ATTACHMENT_MAX_MB, storing none", async () => {
      const me = await visitor();
      const script = await putFile(me.cookie, "cat.png", "<script>alert(1)</script>");
      expect(script.status).toBe(415);
      expect((await errorOf(script)).message).toBe("cat.png is named as a .png file, but its bytes are text: it was not attached.");
      const json = await putFile(me.cookie, "broken.json", "{nope");
      expect(json.status).toBe(415);
      expect((await errorOf(json)).message).toContain("not valid JSON");
      const empty = await putFile(me.cookie, "empty.txt", "");
      expect(empty.status).toBe(400);
      expect((await errorOf(empty)).message).toBe("empty.txt is empty.");
      // A ZIP's signature: a type file-type knows, and not one that may be attached.
      const zip = await putFile(me.cookie, "archive.txt", Buffer.concat([Buffer.from("504b0304", "hex"), Buffer.alloc(64, 1)]));
      expect(zip.status).toBe(415);
      expect((await errorOf(zip)).message).toMatch(/^archive\.txt is a ZIP file; only PNG, JPEG, WebP or GIF images, text, Markdown, CSV, JSON or PDF can be attached\.$/);
      const big = Buffer.concat([solidPng(), Buffer.alloc(1024 * 1024)]);
      const tooLarge = await putFile(me.cookie, "big.png", big);
      expect(tooLarge.status).toBe(413);
      expect((await errorOf(tooLarge)).message).toBe("The file is larger than 1.0 MB, the most one file may be.");
      // Declared over the limit: refused before a byte is read.
      const declared = await putFile(me.cookie, "big.png", solidPng(), { "content-length": String(2 * 1024 * 1024) });
      expect(declared.status).toBe(413);
      expect(await fileRows(me.id)).toEqual([]);
    });

    it("needs a name, and the caller's identity", async () => {
      const me = await visitor();
      const unnamed = await upload.POST(request("/api/files", { method: "POST", cookie: me.cookie, body: "hello" }), undefined as never);
      expect(unnamed.status).toBe(400);
      expect((await errorOf(unnamed)).message).toBe("Name the file in the X-File-Name header (URI-encoded).");
      const pathy = await putFile(me.cookie, "../etc/passwd", "x");
      expect(pathy.status).toBe(400);
      expect((await errorOf(pathy)).code).toBe("bad_request:file_name");
      const stranger = await upload.POST(request("/api/files", { method: "POST", body: "x", headers: { "x-file-name": "a.txt" } }), undefined as never);
      expect(stranger.status).toBe(401);
    });
  });

  describe("stored once, read back by its owner only", () => {
    it("stores the same bytes once per owner, under any name", async () => {
      const me = await visitor();
      const first = await uploadedFile(me.cookie, "a.png", solidPng("#112233"));
      const again = await uploadedFile(me.cookie, "b.png", solidPng("#112233"));
      expect(again).toEqual({ ...first, name: "b.png" });
      expect(await fileRows(me.id)).toHaveLength(1);
      // Another owner's copy of the same bytes is theirs.
      const other = await visitor();
      expect((await uploadedFile(other.cookie, "a.png", solidPng("#112233"))).id).not.toBe(first.id);
    });

    it("serves the owner's file with its type, its name, nosniff and a sandbox; anyone else gets a 404", async () => {
      const me = await visitor();
      const image = await uploadedFile(me.cookie, "Été photo.png", solidPng());
      const response = await get(me.cookie, image.id);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(solidPng());
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-security-policy")).toContain("sandbox");
      expect(response.headers.get("content-disposition")).toBe(`inline; filename="_t_ photo.png"; filename*=UTF-8''${encodeURIComponent("Été photo.png")}`);
      const page = await uploadedFile(me.cookie, "page.txt", "<html><script>alert(1)</script></html>");
      const text = await get(me.cookie, page.id);
      expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(text.headers.get("content-disposition")).toMatch(/^attachment; /);

      const other = await visitor();
      expect((await get(other.cookie, image.id)).status).toBe(404);
      expect((await get(me.cookie, randomUUID())).status).toBe(404);
      expect((await get(me.cookie, "not-a-uuid")).status).toBe(404);
    });
  });

  describe("a message carries its files", () => {
    const replyIdOf = (chunks: UIMessageChunk[]) => chunks.find((c): c is Extract<UIMessageChunk, { type: "start" }> => c.type === "start")!.messageId!;

    it("stores them as parts of the user's message, shown in its messages and timeline, sent once however often the message is", async () => {
      const me = await visitor();
      const image = await uploadedFile(me.cookie, "chart.png", solidPng());
      const notes = await uploadedFile(me.cookie, "notes.md", "# Notes\nThe launch is on Friday.");
      const message = { id: randomUUID(), content: "What do these say?", files: [{ id: image.id }, { id: notes.id, name: "launch notes.md" }] };
      const turn = await chatTurn(chat, { message, model: "openai-compatible:text-mock" }, me.cookie);
      expect(turn.response.status).toBe(200);
      const threadId = turn.threadId!;

      const expected: FilePart[] = [
        { type: "file", fileId: image.id, name: "chart.png", mediaType: "image/png", size: image.size },
        { type: "file", fileId: notes.id, name: "launch notes.md", mediaType: "text/markdown", size: notes.size },
      ];
      const page = (await (await messagesRoute.GET(request(`/api/threads/${threadId}/messages`, { cookie: me.cookie }), params(threadId))).json()) as MessagesPage;
      expect(page.messages[0].parts).toEqual([{ type: "text", text: "What do these say?" }, ...expected]);
      const timeline = (await (await timelineRoute.GET(request(`/api/threads/${threadId}/timeline`, { cookie: me.cookie }), params(threadId))).json()) as { parts: TimelineEntry[] };
      expect(timeline.parts.filter((entry) => entry.type === "file").map((entry) => ({ role: entry.role, messageId: entry.messageId }))).toEqual([
        { role: "user", messageId: message.id },
        { role: "user", messageId: message.id },
      ]);

      // The same message sent again: answered from what is stored, its files not stored twice.
      const again = await chatTurn(chat, { threadId, message, model: "openai-compatible:text-mock" }, me.cookie);
      expect(again.response.status).toBe(200);
      const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM messages WHERE thread_id = $1 AND kind = 'file'", [threadId]);
      expect(rows[0].n).toBe(2);
      expect(replyIdOf(again.chunks)).toBe(replyIdOf(turn.chunks));
    });

    it("gives an image to a model that sees images and a line naming it to one that does not; text and a PDF's text go in as text", async () => {
      const me = await visitor();
      const image = await uploadedFile(me.cookie, "red.png", solidPng("#ff0000"));
      const pdf = await uploadedFile(me.cookie, "report.pdf", textPdf("Revenue grew by nine percent"));
      const csv = await uploadedFile(me.cookie, "sales.csv", "month,total\nMarch,42\n");
      const files = [{ id: image.id }, { id: pdf.id }, { id: csv.id }];

      await chatTurn(chat, { message: { id: randomUUID(), content: "Look", files }, model: "openai-compatible:vision-mock" }, me.cookie);
      const seen = lastUserContent() as { type: string; text?: string; image_url?: { url: string } }[];
      expect(seen[0]).toEqual({ type: "text", text: "Look" });
      const picture = seen.find((part) => part.type === "image_url")!;
      expect(picture.image_url!.url).toBe(`data:image/png;base64,${solidPng("#ff0000").toString("base64")}`);
      const texts = seen.filter((part) => part.type === "text").map((part) => part.text!);
      expect(texts).toContain(`[Attached file: red.png (PNG image, ${image.size} bytes)]`);
      expect(texts.some((text) => text.startsWith("[Attached file: report.pdf (PDF,") && text.includes("Revenue grew by nine percent"))).toBe(true);
      expect(texts.some((text) => text.startsWith("[Attached file: sales.csv (CSV,") && text.endsWith("month,total\nMarch,42\n"))).toBe(true);

      await chatTurn(chat, { message: { id: randomUUID(), content: "Look again", files: [{ id: image.id }] }, model: "openai-compatible:text-mock" }, me.cookie);
      const blind = lastUserContent() as { type: string; text?: string }[];
      expect(blind.some((part) => part.type === "image_url")).toBe(false);
      expect(blind).toContainEqual({ type: "text", text: `[Attached file: red.png (PNG image, ${image.size} bytes): this model cannot see images, so only its name is given]` });
    });

    it("keeps reading a thread's earlier files on later turns, from the database or the signed copy the client sends back", async () => {
      const me = await visitor();
      const notes = await uploadedFile(me.cookie, "facts.txt", "The secret word is heliotrope.");
      const first = { id: randomUUID(), content: "Remember this file", files: [{ id: notes.id }] };
      const a = await chatTurn(chat, { message: first, model: "openai-compatible:text-mock" }, me.cookie);
      const threadId = a.threadId!;
      const signed = signaturesIn(a.chunks);
      const replyId = replyIdOf(a.chunks);
      const file: Part = { type: "file", fileId: notes.id, name: "facts.txt", mediaType: "text/plain", size: notes.size };
      const copy = [
        { id: first.id, role: "user", parts: [{ type: "text", text: first.content }, file], ...signed.get(first.id) },
        { id: replyId, role: "assistant", parts: await replyParts(a.chunks), ...signed.get(replyId) },
      ];
      const b = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "What was the word?" }, history: copy, model: "openai-compatible:text-mock" }, me.cookie);
      expect(b.response.headers.get("x-history-source")).toBe("client");
      const sent = (t.mock.requests.at(-1) as { messages: Sent[] }).messages;
      expect(JSON.stringify(sent)).toContain("The secret word is heliotrope.");

      // The client's copy with the file taken out is not the signed one: the database is read instead, and still holds it.
      const tampered = [{ ...copy[0], parts: [{ type: "text", text: first.content }] }, copy[1]];
      const c = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "And now?" }, history: tampered, model: "openai-compatible:text-mock" }, me.cookie);
      expect(c.response.headers.get("x-history-source")).toBe("database");
      expect(JSON.stringify((t.mock.requests.at(-1) as { messages: Sent[] }).messages)).toContain("The secret word is heliotrope.");
    });

    it("refuses six files, another owner's file and a file named twice, with nothing stored", async () => {
      const me = await visitor();
      const mine = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => uploadedFile(me.cookie, `n${n}.txt`, `file ${n}`)));
      const six = await chatTurn(chat, { message: { id: randomUUID(), content: "six", files: mine.map((f) => ({ id: f.id })) } }, me.cookie);
      expect(six.response.status).toBe(400);
      expect(six.error!.error.message).toBe("message.files: must hold at most 5 files");
      const twice = await chatTurn(chat, { message: { id: randomUUID(), content: "twice", files: [{ id: mine[0].id }, { id: mine[0].id }] } }, me.cookie);
      expect(twice.error!.error.message).toBe("message.files: must name each file once");

      const other = await visitor();
      const theirs = await uploadedFile(other.cookie, "theirs.txt", "not yours");
      const stolen = await chatTurn(chat, { message: { id: randomUUID(), content: "steal", files: [{ id: theirs.id }] } }, me.cookie);
      expect(stolen.response.status).toBe(400);
      expect(stolen.error!.error.message).toBe(`The file ${theirs.id} is not one of your uploads (it was removed, or never sent): attach it again.`);
      const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM threads WHERE owner = $1", [me.id]);
      expect(rows[0].n).toBe(0);
    });

    it("has the offline model name each file it was given, by name, kind and size", async () => {
      const me = await visitor();
      const image = await uploadedFile(me.cookie, "cat.png", solidPng());
      const notes = await uploadedFile(me.cookie, "todo.md", "- feed the cat");
      const turn = await chatTurn(
        chat,
        { message: { id: randomUUID(), content: "Here you go", files: [{ id: image.id }, { id: notes.id }] }, model: "offline:threadline-offline" },
        me.cookie,
      );
      expect(turn.text).toContain("You attached 2 files:");
      expect(turn.text).toContain(`- **cat.png** (PNG image, ${image.size} bytes)`);
      expect(turn.text).toContain(`- **todo.md** (Markdown, ${notes.size} bytes)`);
    });
  });

  it("keeps a line for each file in the summary that compaction writes of the messages that carried them", async () => {
    const me = await visitor();
    const notes = await uploadedFile(me.cookie, "minutes.md", "# Minutes\nWe chose the blue logo.");
    const first = await chatTurn(chat, { message: { id: randomUUID(), content: "Keep these minutes", files: [{ id: notes.id }] } }, me.cookie);
    const threadId = first.threadId!;
    for (const word of ["two", "three", "four"]) await chatTurn(chat, { threadId, message: { id: randomUUID(), content: word } }, me.cookie);
    let summary: string | undefined;
    for (let i = 0; i < 100 && summary === undefined; i++) {
      const { rows } = await t.pool.query("SELECT content FROM messages WHERE thread_id = $1 AND kind = 'system_event' ORDER BY seq DESC LIMIT 1", [threadId]);
      summary = rows[0]?.content;
      if (summary === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(summary).toMatch(/\n\nFiles attached in the summarized messages:\n- minutes\.md \(Markdown, \d+ bytes\)$/);
  });

  describe("export and import", () => {
    const exportOf = async (cookie: string, threadId: string, format: "json" | "markdown") =>
      exportRoute.GET(request(`/api/threads/${threadId}/export?format=${format}`, { cookie }), params(threadId));
    const importAs = (cookie: string, file: unknown) => importRoute.POST(request("/api/threads/import", { method: "POST", cookie, json: file }), undefined);

    it("inlines each file once in the JSON export, lists them in the Markdown, and an import gives another owner files of their own", async () => {
      const me = await visitor();
      const image = await uploadedFile(me.cookie, "plot.png", solidPng("#00aa00"));
      const pdf = await uploadedFile(me.cookie, "brief.pdf", textPdf("The brief says ship on Monday"));
      const a = await chatTurn(chat, { message: { id: randomUUID(), content: "Two files", files: [{ id: image.id }, { id: pdf.id }] } }, me.cookie);
      await chatTurn(chat, { threadId: a.threadId, message: { id: randomUUID(), content: "The image again", files: [{ id: image.id }] } }, me.cookie);

      const file = (await (await exportOf(me.cookie, a.threadId!, "json")).json()) as ThreadExport;
      expect(file.files!.map((f) => ({ id: f.id, name: f.name, mediaType: f.mediaType, size: f.size }))).toEqual([
        { id: image.id, name: "plot.png", mediaType: "image/png", size: image.size },
        { id: pdf.id, name: "brief.pdf", mediaType: "application/pdf", size: pdf.size },
      ]);
      expect(Buffer.from(file.files![0].data, "base64")).toEqual(solidPng("#00aa00"));
      // Before the messages: an import reads them first.
      const raw = await (await exportOf(me.cookie, a.threadId!, "json")).text();
      expect(raw.indexOf('"files"')).toBeLessThan(raw.indexOf('"messages"'));
      const markdown = await (await exportOf(me.cookie, a.threadId!, "markdown")).text();
      expect(markdown).toContain("- Attached: `plot.png` (PNG image, ");
      expect(markdown).toContain("- Attached: `brief.pdf` (PDF, ");

      const other = await visitor();
      const imported = await importAs(other.cookie, file);
      expect(imported.status, await imported.clone().text()).toBe(201);
      const { thread } = (await imported.json()) as ThreadResponse;
      const page = (await (await messagesRoute.GET(request(`/api/threads/${thread.id}/messages`, { cookie: other.cookie }), params(thread.id))).json()) as MessagesPage;
      const theirs = page.messages.flatMap((m) => m.parts).filter((p): p is FilePart => p.type === "file");
      expect(theirs.map((p) => p.name)).toEqual(["plot.png", "brief.pdf", "plot.png"]);
      expect(theirs[0].fileId).toBe(theirs[2].fileId);
      expect(theirs[0].fileId).not.toBe(image.id);
      expect(Buffer.from(await (await get(other.cookie, theirs[0].fileId)).arrayBuffer())).toEqual(solidPng("#00aa00"));
      expect(await fileRows(other.id)).toHaveLength(2);
      // The imported PDF's text reaches the model as the original's did.
      await chatTurn(chat, { threadId: thread.id, message: { id: randomUUID(), content: "What does the brief say?" }, model: "openai-compatible:text-mock" }, other.cookie);
      expect(JSON.stringify((t.mock.requests.at(-1) as { messages: Sent[] }).messages)).toContain("The brief says ship on Monday");
      // The owner importing their own file holds each content once still.
      expect((await importAs(me.cookie, file)).status).toBe(201);
      expect(await fileRows(me.id)).toHaveLength(2);
    });

    it("refuses a file whose files lie about their bytes or come after the messages, or whose parts name a file it lacks, storing nothing", async () => {
      const me = await visitor();
      const notes = await uploadedFile(me.cookie, "n.txt", "plain words");
      const a = await chatTurn(chat, { message: { id: randomUUID(), content: "one", files: [{ id: notes.id }] } }, me.cookie);
      const file = (await (await exportOf(me.cookie, a.threadId!, "json")).json()) as ThreadExport;
      const other = await visitor();
      const cases: [unknown, string][] = [
        [{ ...file, files: [{ ...file.files![0], mediaType: "image/png" }] }, "files.0.data: n.txt is text/plain by its bytes, not the image/png it says"],
        [{ ...file, files: [{ ...file.files![0], size: 3 }] }, "files.0.data: n.txt holds 11 bytes, not the 3 its size says"],
        [{ ...file, files: [{ ...file.files![0], data: "not base64!" }] }, "files.0.data: must be the file's bytes in base64"],
        [{ ...file, files: [] }, "messages.0.parts.1.fileId: must be the id of a file of the file's files, which come before the messages"],
        // After the messages: a message naming one is refused first, and files after messages that name none are refused too.
        [{ format: file.format, version: file.version, exportedAt: file.exportedAt, thread: file.thread, messages: file.messages, files: file.files }, "messages.0.parts.1.fileId: must be the id of a file of the file's files, which come before the messages"],
        [
          { format: file.format, version: file.version, exportedAt: file.exportedAt, thread: file.thread, messages: [{ ...file.messages[0], parts: file.messages[0].parts.slice(0, 1) }], files: file.files },
          "files: must come before the messages",
        ],
      ];
      for (const [body, message] of cases) {
        const refused = await importAs(other.cookie, body);
        expect(refused.status, message).toBe(400);
        expect((await errorOf(refused)).message).toBe(message);
      }
      expect(await fileRows(other.id)).toEqual([]);
      const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM threads WHERE owner = $1", [other.id]);
      expect(rows[0].n).toBe(0);
    });
  });

  describe("files go with the threads that name them", () => {
    it("deletes a thread's files with it, except one another thread names", async () => {
      const me = await visitor();
      const shared = await uploadedFile(me.cookie, "shared.txt", "in two threads");
      const own = await uploadedFile(me.cookie, "own.txt", "in one thread");
      const a = await chatTurn(chat, { message: { id: randomUUID(), content: "a", files: [{ id: shared.id }, { id: own.id }] } }, me.cookie);
      await chatTurn(chat, { message: { id: randomUUID(), content: "b", files: [{ id: shared.id }] } }, me.cookie);
      const removed = await threadRoute.DELETE(request(`/api/threads/${a.threadId}`, { method: "DELETE", cookie: me.cookie }), params(a.threadId!));
      expect(removed.status).toBe(204);
      expect((await fileRows(me.id)).map((row) => row.id)).toEqual([shared.id]);
      expect((await get(me.cookie, own.id)).status).toBe(404);
      expect((await get(me.cookie, shared.id)).status).toBe(200);
    });

    it("sweeps an upload nobody sent a day after it was uploaded, and never one a message names", async () => {
      const me = await visitor();
      const sent = await uploadedFile(me.cookie, "sent.txt", "sent");
      const unsent = await uploadedFile(me.cookie, "unsent.txt", "never sent");
      const fresh = await uploadedFile(me.cookie, "fresh.txt", "just uploaded");
      await chatTurn(chat, { message: { id: randomUUID(), content: "with one", files: [{ id: sent.id }] } }, me.cookie);
      await t.pool.query("UPDATE files SET uploaded_at = now() - interval '25 hours' WHERE id = ANY($1::uuid[])", [[sent.id, unsent.id]]);
      await t.app.fileSweep().sweep();
      expect((await fileRows(me.id)).map((row) => row.id).sort()).toEqual([sent.id, fresh.id].sort());
    });
  });
});

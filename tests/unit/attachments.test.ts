import { describe, expect, it, vi } from "vitest";
import { AttachmentTray, type Uploader } from "@/lib/client/attachments";
import type { FileTextState, UploadedFile } from "@/lib/protocol/files";
import { fromUIParts, toModelMessages, toUIParts } from "@/lib/protocol/parts-codec";
import { summaryFileLines, withFileLines } from "@/lib/model/summary-request";
import { attachedFiles } from "@/lib/model/offline-model";
import type { FilePart, Part } from "@threadline/history/parts";

// The composer's files before they go (the tray), and a file part's other
// shapes: the UI's, the model's, the summary's.

/** An uploader the test finishes by hand: each call waits for `finish(index, outcome)`. */
function manualUploader() {
  const calls: { file: File; progress: (sent: number) => void; resolve: (f: UploadedFile) => void; reject: (e: Error) => void; signal: AbortSignal }[] = [];
  const upload: Uploader = (file, progress, signal) => new Promise((resolve, reject) => calls.push({ file, progress, resolve, reject, signal }));
  return { calls, upload };
}
const file = (name: string, size = 10, type = "text/plain") => new File([new Uint8Array(size)], name, { type });
const stored = (name: string, size = 10): UploadedFile => ({ id: crypto.randomUUID(), name, mediaType: "text/plain", size });

describe("the attachment tray", () => {
  it("uploads each file as it is added, with its progress, and holds the message back until all are up", async () => {
    const { calls, upload } = manualUploader();
    const tray = new AttachmentTray({ maxBytes: 100, upload });
    tray.add([file("a.txt", 10), file("b.txt", 20)]);
    expect(tray.getSnapshot().items.map((i) => i.state)).toEqual(["uploading", "uploading"]);
    expect(tray.getSnapshot().uploading).toBe(true);
    calls[0].progress(5);
    expect(tray.getSnapshot().items[0].progress).toBe(0.5);
    const a = stored("a.txt");
    calls[0].resolve(a);
    await Promise.resolve();
    expect(tray.getSnapshot().ready).toEqual([a]);
    expect(tray.getSnapshot().uploading).toBe(true);
    calls[1].reject(new Error("b.txt is not a type that can be attached"));
    await Promise.resolve();
    expect(tray.getSnapshot().uploading).toBe(false);
    expect(tray.getSnapshot().items[1]).toMatchObject({ state: "failed", error: "b.txt is not a type that can be attached" });
    expect(tray.getSnapshot().ready).toEqual([a]);
  });

  it("says a PDF is not ready while the server reads its text, and what came of it, without holding the message back", async () => {
    const { calls, upload } = manualUploader();
    const states: (FileTextState | null)[] = ["pending", "failed"];
    const asked: string[] = [];
    const tray = new AttachmentTray({ maxBytes: 100, upload, followEveryMs: 1, textState: async (id) => (asked.push(id), states.shift()!) });
    tray.add([file("scan.pdf", 10, "application/pdf")]);
    const pdf: UploadedFile = { ...stored("scan.pdf"), mediaType: "application/pdf", textState: "pending" };
    calls[0].resolve(pdf);
    await Promise.resolve();
    expect(tray.getSnapshot()).toMatchObject({ uploading: false, reading: true, ready: [pdf] });
    await vi.waitFor(() => expect(tray.getSnapshot().reading).toBe(false));
    expect(tray.getSnapshot().items[0].uploaded?.textState).toBe("failed");
    expect(asked).toEqual([pdf.id, pdf.id]);
  });

  it("stops asking after a PDF's text once the file is taken out", async () => {
    const { calls, upload } = manualUploader();
    let asked = 0;
    const tray = new AttachmentTray({ maxBytes: 100, upload, followEveryMs: 1, textState: async () => (asked++, "pending") });
    tray.add([file("long.pdf", 10, "application/pdf")]);
    calls[0].resolve({ ...stored("long.pdf"), mediaType: "application/pdf", textState: "pending" });
    await vi.waitFor(() => expect(asked).toBeGreaterThan(0));
    tray.remove(tray.getSnapshot().items[0].key);
    const after = asked;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toBeLessThanOrEqual(after + 1);
    expect(tray.getSnapshot()).toMatchObject({ items: [], reading: false });
  });

  it("refuses a file over the size limit, an empty one and a sixth, without uploading them", () => {
    const { calls, upload } = manualUploader();
    const tray = new AttachmentTray({ maxBytes: 1024 * 1024, upload });
    tray.add([file("big.bin", 2 * 1024 * 1024), file("empty.txt", 0)]);
    expect(tray.getSnapshot().items.map((i) => i.error)).toEqual(["big.bin is larger than 1.0 MB, the most one file may be.", "empty.txt is empty."]);
    tray.add([1, 2, 3, 4, 5, 6].map((n) => file(`${n}.txt`)));
    expect(calls.map((c) => c.file.name)).toEqual(["1.txt", "2.txt", "3.txt", "4.txt", "5.txt"]);
    expect(tray.getSnapshot().items.at(-1)).toMatchObject({ name: "6.txt", state: "failed", error: "A message carries at most 5 files." });
  });

  it("cancels an upload taken out, and empties once the message has gone", async () => {
    const { calls, upload } = manualUploader();
    const tray = new AttachmentTray({ maxBytes: 100, upload });
    tray.add([file("a.txt"), file("b.txt")]);
    tray.remove(tray.getSnapshot().items[0].key);
    expect(calls[0].signal.aborted).toBe(true);
    expect(tray.getSnapshot().items.map((i) => i.name)).toEqual(["b.txt"]);
    calls[1].resolve(stored("b.txt"));
    await Promise.resolve();
    tray.clear();
    expect(tray.getSnapshot()).toEqual({ items: [], uploading: false, ready: [], reading: false });
  });
});

describe("a file part's shapes", () => {
  const part: FilePart = { type: "file", fileId: "6a0c4a53-5a3f-4c50-9c1f-3c2f5f7d2a11", name: "chart.png", mediaType: "image/png", size: 2048 };

  it("comes back from the UI's file part as it went", () => {
    const parts: Part[] = [{ type: "text", text: "look" }, part];
    const ui = toUIParts(parts);
    expect(ui[1]).toMatchObject({ type: "file", mediaType: "image/png", filename: "chart.png", url: `/api/files/${part.fileId}` });
    expect(fromUIParts(ui)).toEqual(parts);
  });

  it("is named by a line for a model given no contents, which the offline model reads back", () => {
    const [message] = toModelMessages([{ id: "u", role: "user", parts: [{ type: "text", text: "look" }, part] }], () => "");
    expect(message.content).toEqual([
      { type: "text", text: "look" },
      { type: "text", text: "[Attached file: chart.png (PNG image, 2.0 KB)]" },
    ]);
    const prompt = [{ role: "user" as const, content: (message.content as { type: "text"; text: string }[]).map((p) => ({ ...p })) }];
    expect(attachedFiles(prompt)).toEqual([{ name: "chart.png", kind: "PNG image", size: "2.0 KB" }]);
  });

  it("keeps a line in every summary written after it, however often the thread is compacted", () => {
    const first = summaryFileLines(undefined, [{ id: "u", role: "user", parts: [{ type: "text", text: "x" }, part] }]);
    const summary = withFileLines("- The user shared a chart.", first);
    expect(summary).toBe("- The user shared a chart.\n\nFiles attached in the summarized messages:\n- chart.png (PNG image, 2.0 KB)");
    const other: FilePart = { ...part, fileId: "7b0c4a53-5a3f-4c50-9c1f-3c2f5f7d2a11", name: "notes.md", mediaType: "text/markdown", size: 10 };
    const second = summaryFileLines(summary, [{ id: "v", role: "user", parts: [{ type: "text", text: "y" }, other] }]);
    // The model copied the earlier list into its words: it is dropped, and the list written once.
    expect(withFileLines(`- Still about the chart.\n\nFiles attached in the summarized messages:\n- chart.png (PNG image, 2.0 KB)`, second)).toBe(
      "- Still about the chart.\n\nFiles attached in the summarized messages:\n- chart.png (PNG image, 2.0 KB)\n- notes.md (Markdown, 10 bytes)",
    );
  });
});

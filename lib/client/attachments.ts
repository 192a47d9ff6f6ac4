// The files a message will carry while they are chosen and uploaded: each is
// uploaded as soon as it is added (POST /api/files, before the message, so a
// large file never rides in the chat request), with its progress, and
// refused here with the server's own words when it cannot be attached. A
// PDF's text is read on the server after its upload answers: the tray
// follows it (GET /api/files/:id/text) so the composer can say the file is
// not ready yet; the message may go meanwhile (its turn waits for the text).
// A store with subscribe/getSnapshot, so React renders it and tests drive it
// without a browser.
import { limits } from "@/lib/limits";
import { FILE_NAME_HEADER, fileSizeText, type FileTextState, type UploadedFile } from "@/lib/protocol/file-kinds";

export interface Attachment {
  key: string;
  name: string;
  size: number;
  /** The type the browser gave (a preview is shown for an image while it uploads). */
  browserType: string;
  state: "uploading" | "ready" | "failed";
  /** 0 to 1. */
  progress: number;
  /** Why it was refused. */
  error?: string;
  /** What the server stored, once it has. */
  uploaded?: UploadedFile;
}

export interface AttachmentsSnapshot {
  items: Attachment[];
  /** Some file is still on its way: the message waits. */
  uploading: boolean;
  /** What the message carries: the files that made it. */
  ready: UploadedFile[];
  /** Some PDF's text is still being read: its model would get it a little later. */
  reading: boolean;
}

/** Sends one file; progress as it goes; the stored file, or an Error whose message is the server's. */
export type Uploader = (file: File, onProgress: (sent: number) => void, signal: AbortSignal) => Promise<UploadedFile>;

/** Where a stored PDF's text is now. */
export type TextStateReader = (id: string, signal: AbortSignal) => Promise<FileTextState | null>;

/** GET /api/files/:id/text. */
export const fetchTextState: TextStateReader = async (id, signal) => {
  const response = await fetch(`/api/files/${id}/text`, { signal, cache: "no-store" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return ((await response.json()) as { textState: FileTextState | null }).textState;
};

/** How often a pending PDF's text is asked after, and for how long at most (the server's longest read, and then some). */
const FOLLOW_EVERY_MS = 1_000;
const FOLLOW_AT_MOST = 120;

/** The browser's upload (XMLHttpRequest: fetch tells nothing of an upload's progress). */
export const uploadWithProgress: Uploader = (file, onProgress, signal) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/files");
    xhr.setRequestHeader(FILE_NAME_HEADER, encodeURIComponent(file.name || "pasted file"));
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => {
      let body: { error?: { message?: string } } & Partial<UploadedFile> = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status === 201) resolve(body as UploadedFile);
      else reject(new Error(body.error?.message ?? `The file could not be uploaded (HTTP ${xhr.status}).`));
    };
    xhr.onerror = () => reject(new Error("The file could not be uploaded: the connection failed."));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(file);
  });

export class AttachmentTray {
  private snapshot: AttachmentsSnapshot = { items: [], uploading: false, ready: [], reading: false };
  private readonly listeners = new Set<() => void>();
  private readonly uploads = new Map<string, AbortController>();
  private counter = 0;

  constructor(private readonly options: { maxBytes: number; upload?: Uploader; textState?: TextStateReader; followEveryMs?: number }) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly getSnapshot = (): AttachmentsSnapshot => this.snapshot;

  /** Adds files (picked, dropped or pasted): each over a limit is refused at once, the rest upload. */
  readonly add = (files: File[]): void => {
    let items = this.snapshot.items;
    for (const file of files) {
      const key = `file-${++this.counter}`;
      const base = { key, name: file.name || "pasted file", size: file.size, browserType: file.type, progress: 0 };
      const kept = items.filter((item) => item.state !== "failed").length;
      const refusal =
        kept >= limits.maxFilesPerMessage
          ? `A message carries at most ${limits.maxFilesPerMessage} files.`
          : file.size > this.options.maxBytes
            ? `${base.name} is larger than ${fileSizeText(this.options.maxBytes)}, the most one file may be.`
            : file.size === 0
              ? `${base.name} is empty.`
              : undefined;
      items = [...items, refusal ? { ...base, state: "failed", error: refusal } : { ...base, state: "uploading" }];
      if (!refusal) this.start(key, file);
    }
    this.publish(items);
  };

  /** Takes a file out (one on its way is cancelled). */
  readonly remove = (key: string): void => {
    this.uploads.get(key)?.abort();
    this.uploads.delete(key);
    this.publish(this.snapshot.items.filter((item) => item.key !== key));
  };

  /** Empties the tray once its files went with a message. */
  readonly clear = (): void => {
    for (const controller of this.uploads.values()) controller.abort();
    this.uploads.clear();
    this.publish([]);
  };

  private start(key: string, file: File): void {
    const controller = new AbortController();
    this.uploads.set(key, controller);
    const upload = this.options.upload ?? uploadWithProgress;
    upload(file, (sent) => this.change(key, { progress: file.size > 0 ? Math.min(1, sent / file.size) : 1 }), controller.signal).then(
      (uploaded) => {
        this.uploads.delete(key);
        this.change(key, { state: "ready", progress: 1, uploaded, name: uploaded.name });
        if (uploaded.textState === "pending") void this.follow(key, uploaded, controller);
      },
      (error: Error) => {
        this.uploads.delete(key);
        if (controller.signal.aborted) return;
        this.change(key, { state: "failed", error: error.message });
      },
    );
  }

  /** Asks after a pending PDF's text until it is read (or not), the file is taken out, or it has asked long enough. */
  private async follow(key: string, uploaded: UploadedFile, controller: AbortController): Promise<void> {
    this.uploads.set(key, controller);
    const read = this.options.textState ?? fetchTextState;
    try {
      for (let asked = 0; asked < FOLLOW_AT_MOST && !controller.signal.aborted; asked++) {
        await new Promise((resolve) => setTimeout(resolve, this.options.followEveryMs ?? FOLLOW_EVERY_MS));
        if (controller.signal.aborted) return;
        const textState = await read(uploaded.id, controller.signal).catch(() => "pending" as const);
        if (textState !== "pending") {
          this.change(key, { uploaded: { ...uploaded, ...(textState ? { textState } : {}) } });
          return;
        }
      }
    } finally {
      if (this.uploads.get(key) === controller) this.uploads.delete(key);
    }
  }

  private change(key: string, change: Partial<Attachment>): void {
    this.publish(this.snapshot.items.map((item) => (item.key === key ? { ...item, ...change } : item)));
  }

  private publish(items: Attachment[]): void {
    this.snapshot = {
      items,
      uploading: items.some((item) => item.state === "uploading"),
      ready: items.flatMap((item) => (item.state === "ready" && item.uploaded ? [item.uploaded] : [])),
      reading: items.some((item) => item.state === "ready" && item.uploaded?.textState === "pending"),
    };
    for (const listener of this.listeners) listener();
  }
}

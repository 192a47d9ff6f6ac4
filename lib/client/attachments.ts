// The files a message will carry while they are chosen and uploaded: each is
// uploaded as soon as it is added (POST /api/files, before the message, so a
// large file never rides in the chat request), with its progress, and
// refused here with the server's own words when it cannot be attached. A
// store with subscribe/getSnapshot, so React renders it and tests drive it
// without a browser.
import { limits } from "@/lib/limits";
import { FILE_NAME_HEADER, fileSizeText, type UploadedFile } from "@/lib/protocol/file-kinds";

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
}

/** Sends one file; progress as it goes; the stored file, or an Error whose message is the server's. */
export type Uploader = (file: File, onProgress: (sent: number) => void, signal: AbortSignal) => Promise<UploadedFile>;

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
  private snapshot: AttachmentsSnapshot = { items: [], uploading: false, ready: [] };
  private readonly listeners = new Set<() => void>();
  private readonly uploads = new Map<string, AbortController>();
  private counter = 0;

  constructor(private readonly options: { maxBytes: number; upload?: Uploader }) {}

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
      },
      (error: Error) => {
        this.uploads.delete(key);
        if (controller.signal.aborted) return;
        this.change(key, { state: "failed", error: error.message });
      },
    );
  }

  private change(key: string, change: Partial<Attachment>): void {
    this.publish(this.snapshot.items.map((item) => (item.key === key ? { ...item, ...change } : item)));
  }

  private publish(items: Attachment[]): void {
    this.snapshot = {
      items,
      uploading: items.some((item) => item.state === "uploading"),
      ready: items.flatMap((item) => (item.state === "ready" && item.uploaded ? [item.uploaded] : [])),
    };
    for (const listener of this.listeners) listener();
  }
}

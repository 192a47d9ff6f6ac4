import "server-only";
import { createHash } from "node:crypto";
import { AppError } from "@threadline/history/errors";
import type { SessionSecret } from "@/lib/auth/secret";
import { refuseOversized, type ThreadSize, type VersionTree } from "@/lib/threads/export";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import type { FileStore, StoredFile } from "@/lib/files/file-store";
import type { CreateShare } from "@/lib/protocol/share-request";
import { sharePath, type SharedLink, type SharedSnapshot, type ShareOptions } from "@/lib/protocol/shares";
import type { ThreadSummary } from "@/lib/protocol/threads";
import { forkOfSnapshot } from "./fork";
import { newShareId, readShareId, shareIdOf } from "./share-id";
import type { LiveShare, ShareRow, ShareState, ShareStore } from "./share-store";
import { sharedMarkdown } from "./shared-markdown";
import { snapshotOf } from "./snapshot";
import type { SharesSettings } from "./settings";

/** What the links read and write of threads: the thread repository's part they use. */
export interface SharedThreads {
  size(owner: string, id: string): Promise<ThreadSize>;
  versionTree(owner: string, id: string): Promise<VersionTree>;
  import(owner: string, file: Pick<ThreadExport, "thread" | "messages" | "files" | "documents">): Promise<ThreadSummary>;
}

export interface SharesDeps {
  store: ShareStore;
  threads(): SharedThreads;
  /** The owners' files, which a link shows and a fork copies. */
  files(): FileStore;
  secret: SessionSecret;
  settings: SharesSettings;
}

/** A live link as the page shows it. */
export interface OpenedShare {
  options: ShareOptions;
  snapshot: SharedSnapshot;
}

const gone = () => new AppError("gone:share", "This link was revoked by its owner or has expired.");
const unknown = () => new AppError("not_found:share", "There is no such link.");

/**
 * Share links: a thread's active branch as it is now, with what the owner
 * chose to hide taken out (./snapshot.ts), read by anyone with the link while
 * it lives, and continued by a viewer in a thread of their own.
 */
export class Shares {
  constructor(private readonly deps: SharesDeps) {}

  /** A new link to the owner's thread as it is now; `base`: the origin the link's url names. */
  async create(owner: string, threadId: string, request: CreateShare, base: string): Promise<SharedLink> {
    const { store, settings } = this.deps;
    const threads = this.deps.threads();
    try {
      refuseOversized(await threads.size(owner, threadId));
    } catch (error) {
      if (error instanceof AppError && error.code === "payload_too_large:export") {
        throw new AppError("payload_too_large:share", error.message.replace("too large to export", "too large to share"));
      }
      throw error;
    }
    const tree = await threads.versionTree(owner, threadId);
    const snapshot = snapshotOf(tree, request.include);
    if (snapshot.messages.length === 0) throw new AppError("conflict:share_empty", "This thread has no messages to share yet.");
    const text = JSON.stringify(snapshot);
    const bytes = Buffer.byteLength(text);
    if (bytes > settings.SHARE_MAX_KB * 1024) {
      throw new AppError(
        "payload_too_large:share",
        `This conversation is too large to share: its snapshot would hold ${Math.ceil(bytes / 1024)} KB, and a link holds at most ${settings.SHARE_MAX_KB} KB. ` +
          "Leave out documents or tool details, or share a shorter branch.",
      );
    }
    const files = Object.fromEntries(
      (tree.files ?? [])
        .filter((file) => snapshot.files.some((shown) => shown.id === file.id))
        .map((file) => [file.id, createHash("sha256").update(Buffer.from(file.data, "base64")).digest("hex")]),
    );
    const secret = await this.deps.secret();
    const { shareId, key } = newShareId(secret);
    const row = await store.create(
      { key, owner, threadId, title: snapshot.title, options: request.include, snapshot: text, files, expiresInDays: request.expiresInDays },
      settings.SHARES_PER_IDENTITY,
    );
    return toLink(row, shareId, base);
  }

  /** The owner's links not revoked, newest first. */
  async list(owner: string, base: string): Promise<SharedLink[]> {
    const secret = await this.deps.secret();
    return (await this.deps.store.list(owner)).map((row) => toLink(row, shareIdOf(row.key, secret), base));
  }

  /** Revokes one of the owner's links on every server at once; 404 for one that is not theirs, already revoked, or forged. */
  async revoke(owner: string, shareId: string): Promise<void> {
    const key = await this.key(shareId);
    if (!key || !(await this.deps.store.revoke(owner, key))) throw unknown();
  }

  /** Whether the link opens, counting a view when it does and `count` says so. */
  async open(shareId: string, count: boolean): Promise<ShareState> {
    // A forged id is looked up all the same (by a key no row has), so it costs what an unknown one does.
    const key = (await this.key(shareId)) ?? "-";
    return this.deps.store.open(key, count);
  }

  /** A live link's snapshot; 404 or 410 otherwise. */
  async opened(shareId: string): Promise<OpenedShare> {
    const { options, snapshot } = await this.live(shareId);
    return { options, snapshot };
  }

  /** One of a live link's files, as its owner holds it; 404 for a file it does not show, 410 once it is gone. */
  async file(shareId: string, fileId: string): Promise<StoredFile> {
    const { owner, files } = await this.live(shareId);
    const sha256 = Object.hasOwn(files, fileId) ? files[fileId] : undefined;
    const file = sha256 ? (await this.deps.files().byContent(owner, [sha256])).get(sha256) : undefined;
    if (!file) throw unknown();
    return { ...file, id: fileId };
  }

  /**
   * The snapshot as a thread of the viewer's own (source "share", sourceId the
   * link's id), holding exactly what the link shows: the files it shows are
   * copied as the viewer's, and nothing it hides was ever in it.
   */
  async continueAs(viewer: string, shareId: string): Promise<ThreadSummary> {
    const { owner, snapshot, files } = await this.live(shareId);
    const held = await this.deps.files().byContent(owner, Object.values(files));
    const bytes = new Map(Object.entries(files).flatMap(([fileId, sha256]) => {
      const file = held.get(sha256);
      return file ? [[fileId, file.content] as const] : [];
    }));
    return this.deps.threads().import(viewer, forkOfSnapshot(snapshot, shareId, bytes));
  }

  /** A live link's Markdown (what its page shows) and its title; 404 or 410 otherwise. */
  async markdown(shareId: string): Promise<{ title: string | null; text: string }> {
    const { snapshot, options } = await this.opened(shareId);
    return { title: snapshot.title, text: sharedMarkdown(snapshot, options) };
  }

  /** A live link; 404 for an unknown or forged one, 410 for one revoked or expired. */
  private async live(shareId: string): Promise<LiveShare> {
    const found = await this.deps.store.snapshot((await this.key(shareId)) ?? "-");
    if (found === "unknown") throw unknown();
    if (found === "gone") throw gone();
    return found;
  }

  /** The database key of a well-formed id whose signature holds. */
  private async key(shareId: string): Promise<string | null> {
    const read = readShareId(shareId, await this.deps.secret());
    return read?.signed ? read.key : null;
  }
}

function toLink(row: ShareRow, shareId: string, base: string): SharedLink {
  return {
    id: shareId,
    url: new URL(sharePath(shareId), base).toString(),
    threadId: row.threadId,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    options: row.options,
    views: row.views,
    expired: row.expired,
  };
}

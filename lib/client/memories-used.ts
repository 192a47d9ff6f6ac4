// Which memories each reply of the page's thread was given: from the
// transient data-memory chunk as the reply starts (their words come with
// it), or, for a reply the server served, its memoriesUsed ids, whose words
// are read from GET /api/memory (one not there was deleted since).
// Framework-free: the thread's controller holds one and puts what it knows
// in its snapshot.
import type { MemoriesResponse, MemoryGiven } from "@/lib/protocol/memory";
import type { HistoryMessage } from "@/lib/protocol/threads";
import type { DataPart } from "@/lib/client/messages";

/** One memory a reply was given, as the page knows it. */
export type UsedMemory =
  | { id: string; state: "known"; memory: MemoryGiven }
  /** Not among the person's memories any more: deleted (or pushed out) since. */
  | { id: string; state: "deleted" }
  /** Its words are being read, or could not be (memory off on the server, the network). */
  | { id: string; state: "unread" };

/** The memories a stream's data part gave the reply, when it is data-memory; null for any other part. */
export function memoriesGivenIn(part: DataPart): MemoryGiven[] | null {
  return part.type === "data-memory" ? part.data.memories : null;
}

export class MemoriesUsed {
  /** Each reply's memory ids, in the order it was given them. */
  private readonly byReply = new Map<string, string[]>();
  private readonly known = new Map<string, MemoryGiven>();
  private readonly deleted = new Set<string>();
  /** Ids whose words are still to be read. */
  private readonly unread = new Set<string>();
  private reading = false;
  /** A page shows the thread (never while the server renders it): words may be read. */
  private shown = false;
  private view: ReadonlyMap<string, UsedMemory[]> = new Map();

  constructor(
    private readonly listMemories: () => Promise<MemoriesResponse>,
    private readonly changed: () => void,
  ) {}

  /** By reply id: what the page shows under each reply that was given memories. */
  get snapshot(): ReadonlyMap<string, UsedMemory[]> {
    return this.view;
  }

  /** The reply being streamed was given these (data-memory). */
  given(replyId: string, memories: MemoryGiven[]): void {
    for (const memory of memories) {
      this.known.set(memory.id, memory);
      this.unread.delete(memory.id);
    }
    this.byReply.set(
      replyId,
      memories.map((m) => m.id),
    );
    this.rebuild();
  }

  /** Messages the server served: each reply's memoriesUsed, their words read once for all of them. */
  served(messages: HistoryMessage[]): void {
    let added = false;
    for (const message of messages) {
      if (message.role !== "assistant" || !message.memoriesUsed?.length) continue;
      this.byReply.set(message.id, message.memoriesUsed);
      added = true;
      for (const id of message.memoriesUsed) if (!this.known.has(id) && !this.deleted.has(id)) this.unread.add(id);
    }
    if (!added) return;
    this.rebuild();
    if (this.shown) void this.read();
  }

  /** The page shows the thread in a browser: the words of the memories its replies were given are read. */
  show(): void {
    this.shown = true;
    void this.read();
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (this.unread.size > 0) {
        const asked = [...this.unread];
        let memories: MemoriesResponse["memories"];
        try {
          ({ memories } = await this.listMemories());
        } catch {
          // Their words stay unread: the line still says the reply was given memories.
          return;
        }
        const found = new Map(memories.map((m) => [m.id, m]));
        for (const id of asked) {
          const memory = found.get(id);
          if (memory) this.known.set(id, { id, text: memory.text, source: memory.source });
          else this.deleted.add(id);
          this.unread.delete(id);
        }
        this.rebuild();
      }
    } finally {
      this.reading = false;
    }
  }

  private rebuild(): void {
    const view = new Map<string, UsedMemory[]>();
    for (const [replyId, ids] of this.byReply) view.set(replyId, ids.map((id) => this.used(id)));
    this.view = view;
    this.changed();
  }

  private used(id: string): UsedMemory {
    const memory = this.known.get(id);
    if (memory) return { id, state: "known", memory };
    return this.deleted.has(id) ? { id, state: "deleted" } : { id, state: "unread" };
  }
}

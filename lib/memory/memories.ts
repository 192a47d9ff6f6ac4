import "server-only";
import { AppError } from "@threadline/history/errors";
import type { ExportedMemory, Memory, MemoryFile, MemoryImportResponse, MemoryResponse } from "@/lib/protocol/memory";
import type { MemoryStore } from "./memory-store";
import type { MemorySettings } from "./settings";

const notFound = () => new AppError("not_found:memory", "Memory not found.");

/**
 * A person's memories as they see and change them: listed and searched,
 * added by hand, reworded, deleted for good, and their memory on or off.
 * With MEMORY=off nothing of it answers (403).
 */
export class Memories {
  constructor(
    private readonly store: MemoryStore,
    private readonly settings: MemorySettings,
  ) {}

  async list(owner: string, query?: string): Promise<{ memories: Memory[]; enabled: boolean }> {
    this.refuseOff();
    const [memories, enabled] = await Promise.all([
      this.store.list(owner, { query: query?.trim() || undefined, limit: this.settings.MEMORY_PER_IDENTITY }),
      this.store.enabled(owner),
    ]);
    return { memories, enabled };
  }

  /** A memory the person added by hand; past MEMORY_PER_IDENTITY, the oldest unused go, and the answer names them. */
  async add(owner: string, text: string): Promise<MemoryResponse> {
    this.refuseOff();
    const { memory, evicted } = await this.store.add(owner, text, null, this.settings.MEMORY_PER_IDENTITY);
    return evicted.length > 0 ? { memory, evicted } : { memory };
  }

  async edit(owner: string, id: string, text: string): Promise<Memory> {
    this.refuseOff();
    const memory = await this.store.edit(owner, id, text);
    if (!memory) throw notFound();
    return memory;
  }

  async remove(owner: string, id: string): Promise<void> {
    this.refuseOff();
    if (!(await this.store.remove(owner, id))) throw notFound();
  }

  /** Every memory of theirs, as a file to keep or to import elsewhere. */
  async exportAll(owner: string): Promise<MemoryFile> {
    this.refuseOff();
    const memories = await this.store.all(owner);
    return {
      version: 1,
      exportedAt: new Date().toISOString(),
      memories: memories.map(({ text, source, createdAt, lastUsedAt }) => ({ text, source, createdAt, lastUsedAt })),
    };
  }

  /** A file's memories added to theirs, all or none: 409 when they would pass MEMORY_PER_IDENTITY. */
  async importAll(owner: string, memories: readonly ExportedMemory[]): Promise<MemoryImportResponse> {
    this.refuseOff();
    const max = this.settings.MEMORY_PER_IDENTITY;
    const done = await this.store.importMany(owner, memories, max);
    if (!done) {
      throw new AppError("conflict:memory_full", `Importing these would pass the ${max} memories one person may keep. Delete some first, or import fewer.`);
    }
    return done;
  }

  async setEnabled(owner: string, enabled: boolean): Promise<boolean> {
    this.refuseOff();
    await this.store.setEnabled(owner, enabled);
    return enabled;
  }

  private refuseOff(): void {
    if (this.settings.MEMORY === "off") throw new AppError("forbidden:memory_off", "Memory is turned off on this server (MEMORY=off).");
  }
}

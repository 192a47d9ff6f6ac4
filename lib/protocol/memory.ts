// Memory across conversations: what GET, POST, PATCH and DELETE /api/memory
// and PUT /api/memory/settings take and answer. A memory is a short fact
// about the person, kept per person, with where it was learned (a message
// of theirs) or null when they added it by hand. Isomorphic, without zod
// (the page imports it): the requests' schemas are lib/protocol/memory-request.ts.

/** The most characters one memory holds: a fact, not a note. */
export const MAX_MEMORY_CHARS = 500;

/** Where a memory was learned: a message of one of the person's threads (`threadDeleted` once that thread is gone). */
export interface MemorySource {
  threadId: string;
  messageId: string;
  threadDeleted?: boolean;
}

export interface Memory {
  id: string;
  text: string;
  /** null: the person added it by hand. */
  source: MemorySource | null;
  createdAt: string;
  updatedAt: string;
  /** When a reply was last given it; null: never. */
  lastUsedAt: string | null;
}

export interface MemoriesResponse {
  memories: Memory[];
  /** Whether the person's memory is on (and the install's). */
  enabled: boolean;
}

export interface MemoryResponse {
  memory: Memory;
  /** What made room for it, when the person had as many as they may keep: the oldest unused. */
  evicted?: Memory[];
}

export interface MemorySettingsResponse {
  enabled: boolean;
}

/** GET /api/memory/export, and the body POST /api/memory/import takes: a person's memories, to keep or to bring to another install. */
export interface MemoryFile {
  version: 1;
  exportedAt?: string;
  memories: ExportedMemory[];
}

export interface ExportedMemory {
  text: string;
  /** Kept on import only where it names a message of the importer's own threads. */
  source?: MemorySource | null;
  createdAt?: string;
  lastUsedAt?: string | null;
}

/** POST /api/memory/import: how many memories were added (one already kept, in the same words, is not added again). */
export interface MemoryImportResponse {
  imported: number;
  /** Those the file held that were kept already. */
  skipped: number;
}

/** A memory a reply was given, as the transient `data-memory` chunk names it right after the reply's start. */
export interface MemoryGiven {
  id: string;
  text: string;
  source: MemorySource | null;
}

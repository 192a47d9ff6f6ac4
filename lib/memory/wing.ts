import "server-only";
import { once, type Wing, type WingParts } from "@/lib/wing";
import { Memories } from "./memories";
import { adoptMemories, markSourceDeleted, MemoryStore } from "./memory-store";
import type { MemorySettings } from "./settings";

// Memory across conversations: short facts about a person, each with the
// message it was learned from or added by hand. Deleting a thread keeps
// its memories (their source says the thread is gone); a guest's go with
// them to the account they sign up for.

function services({ config, pool }: WingParts<MemorySettings>) {
  return {
    /** The people's memories, as they see and change them. */
    memories: once(() => new Memories(new MemoryStore(pool), config)),
  };
}

export const memoryWing: Wing<unknown, ReturnType<typeof services>, MemorySettings> = {
  name: "memory",
  tables: ["memories", "memory_settings"],
  services,
  thread: {
    async delete(tx, { threadId }) {
      await markSourceDeleted(tx, threadId);
    },
    adopt: adoptMemories,
  },
};

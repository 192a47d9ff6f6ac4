import "server-only";
import { z } from "zod";
import { defineTool, type AgentTool, type Toolset } from "@/lib/agent/network/tools/types";
import { MAX_MEMORY_CHARS } from "@/lib/protocol/memory";
import type { MemoryStore } from "./memory-store";

// The agents' own hands on the person's memory: `remember` keeps a fact the
// person asked to have kept, `forget` deletes one by the id the model was
// given it with (the memories block names each) or that `remember` returned.
// Both change what every later conversation is given, so both ask the person
// first. Neither works in a temporary chat or for a person whose memory is off.

export interface MemoryToolsDeps {
  store: Pick<MemoryStore, "add" | "remove" | "writable">;
  /** The most memories one person keeps (MEMORY_PER_IDENTITY). */
  max: number;
}

const UNWRITABLE = {
  off: "This person has turned their memory off: nothing is remembered or forgotten.",
  temporary: "This is a temporary chat: nothing is remembered or forgotten in it.",
} as const;

export function memoryTools({ store, max }: MemoryToolsDeps): AgentTool[] {
  const refuseUnwritable = async (owner: string, threadId: string) => {
    const why = await store.writable(owner, threadId);
    if (why !== true) throw new Error(UNWRITABLE[why]);
  };
  return [
    defineTool({
      name: "remember",
      description:
        "Keep a short, lasting fact about the user for later conversations (\"Prefers metric units\"), when they ask you to remember it. " +
        "One fact per call, in the third person without a subject. The user is asked to approve it first.",
      input: z.object({ text: z.string().trim().min(1).max(MAX_MEMORY_CHARS).describe("The fact, e.g. \"Lives in Lisbon\"") }),
      needsApproval: true,
      async execute({ text }, context) {
        await refuseUnwritable(context.owner, context.threadId);
        // Keyed by the approved call: run again after a crash, it keeps one memory.
        const source = context.replyId ? { threadId: context.threadId, messageId: context.replyId } : null;
        const { memory, evicted } = await store.add(context.owner, text.replace(/\s+/g, " "), source, max, context.idempotencyKey);
        return { id: memory.id, text: memory.text, ...(evicted.length > 0 ? { evicted: evicted.map((m) => m.text) } : {}) };
      },
    }),
    defineTool({
      name: "forget",
      description:
        "Delete one of the user's memories for good, by its id (the memories you were given name each one), when they ask you to forget it " +
        "or say it is wrong. The user is asked to approve it first.",
      input: z.object({ id: z.uuid().describe("The memory's id") }),
      needsApproval: true,
      async execute({ id }, context) {
        await refuseUnwritable(context.owner, context.threadId);
        if (!(await store.remove(context.owner, id))) throw new Error("There is no memory with that id (it may have been deleted already).");
        return { id, forgotten: true };
      },
    }),
  ];
}

/** The memory tools with the words that go with them in the agents' prompts. */
export const memoryToolset = (deps: MemoryToolsDeps): Toolset => ({
  tools: memoryTools(deps),
  handOverFor: "a fact about the user to remember or forget",
  use: "remember and forget for the user's memories across conversations, only when they ask (the user approves each first)",
  offers: "memory",
});

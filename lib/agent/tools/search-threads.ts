import { z } from "zod";
import type { JsonValue } from "@/lib/protocol/parts";
import { defineTool } from "./types";

export interface ThreadSearchHit {
  threadId: string;
  threadTitle: string;
  role: "user" | "assistant";
  snippet: string;
  createdAt: string;
}

/** Searches one owner's threads, never another's. */
export type SearchThreads = (owner: string, query: string, options: { limit: number; excludeThreadId?: string }) => Promise<ThreadSearchHit[]>;

const LIMIT = 5;

export const searchThreads = (search: SearchThreads) =>
  defineTool({
    name: "search_threads",
    description:
      "Searches the user's other conversations (not this one) for what was said about something. " +
      "Give a few keywords; returns matching messages with their thread's title.",
    input: z.object({ query: z.string().trim().min(1).max(200).describe("Keywords, e.g. \"flamingos\"") }),
    async execute({ query }, { owner, threadId }) {
      const hits = await search(owner, query, { limit: LIMIT, excludeThreadId: threadId });
      return { query, hits: hits.map((hit) => ({ ...hit })) } as JsonValue;
    },
  });

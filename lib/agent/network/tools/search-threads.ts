import { z } from "zod";
import type { JsonValue } from "@threadline/history/parts";
import { defineTool } from "./types";

export interface ThreadSearchHit {
  threadId: string;
  title: string;
  snippet: string;
  updatedAt: string;
}

/** Searches one owner's threads, never another's. */
export type SearchThreads = (owner: string, query: string, options: { limit: number; excludeThreadId?: string }) => Promise<ThreadSearchHit[]>;

const LIMIT = 5;

export const searchThreads = (search: SearchThreads) =>
  defineTool({
    name: "search_threads",
    description:
      "Searches the user's other conversations (not this one) by title and by what was said. " +
      "Give a few keywords; returns the best-matching threads with the words around each match.",
    input: z.object({ query: z.string().trim().min(1).max(200).describe("Keywords, e.g. \"flamingos\"") }),
    async execute({ query }, { owner, threadId }) {
      const hits = await search(owner, query, { limit: LIMIT, excludeThreadId: threadId });
      // What the model needs: where, and the words around the match.
      return { query, hits: hits.map(({ threadId, title, snippet, updatedAt }) => ({ threadId, title, snippet, updatedAt })) } as JsonValue;
    },
  });

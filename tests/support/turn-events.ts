import { randomUUID } from "node:crypto";
import type { ChatTurnEventData, ThreadCompactEventData } from "@/lib/protocol/turn-events";
import { authorizeCompaction, authorizeTurn } from "@/lib/auth/turn-authorization";
import type { ThreadMessage, UserMessage } from "@threadline/history/contract";
import { SESSION_SECRET } from "./api";

/**
 * The data of a chat-turn event as the app sends it: a concurrency key and the
 * app's signature with the tests' SESSION_SECRET. `forge` sets a different
 * authorization, as someone without the secret would.
 */
export function turnEventData(fields: {
  owner: string;
  content?: string;
  turnId?: string;
  threadId?: string;
  message?: UserMessage;
  clientHistory?: (ThreadMessage & { seq: number })[];
  forge?: string;
}): ChatTurnEventData {
  const turnId = fields.turnId ?? randomUUID();
  const claims = {
    turnId,
    owner: fields.owner,
    threadId: fields.threadId,
    message: fields.message ?? { id: randomUUID(), role: "user" as const, content: fields.content ?? "hello" },
    clientHistory: fields.clientHistory,
  };
  return {
    ...claims,
    concurrencyKey: fields.threadId ?? turnId,
    authorization: fields.forge ?? authorizeTurn(claims, SESSION_SECRET),
  };
}

/** The data of a compaction event as the app sends it, signed with the tests' SESSION_SECRET; `forge`, as for turnEventData. */
export function compactEventData(fields: { owner: string; threadId: string; forge?: string }): ThreadCompactEventData {
  const thread = { owner: fields.owner, threadId: fields.threadId };
  return { ...thread, authorization: fields.forge ?? authorizeCompaction(thread, SESSION_SECRET) };
}

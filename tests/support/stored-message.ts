import type { HistoryMessage } from "@/lib/protocol/threads";

/** A finished message as the server pages it: its text is its id, unless `more` says otherwise. */
export function storedMessage(id: string, role: HistoryMessage["role"], seq: number, more: Partial<HistoryMessage> = {}): HistoryMessage {
  return { id, role, seq, createdAt: "2026-11-21T10:00:00.000Z", status: "complete", parts: [{ type: "text", text: id }], ...more };
}

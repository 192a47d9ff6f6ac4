import { expect } from "vitest";
import { WAITING_NOTICE } from "@/lib/protocol/chat";
import { parseChunks, readUntil, replyText, restChunks } from "./api";

// Apart from api.ts, which the end-to-end specs reach (through fresh-copy.ts)
// and which must therefore not import Vitest.

/**
 * A message sent into a thread while `first` (the response that started its
 * reply) still streams: answered at once with a notice that it waits, its
 * first bytes there before the first reply ends. Both bodies, read to their end.
 */
export async function sentWhileRunning(first: Response, sendNext: (threadId: string) => Promise<Response>) {
  const threadId = first.headers.get("x-thread-id")!;
  const firstRead = await readUntil(first, (text) => replyText(parseChunks(text)).length > 0);
  const next = await sendNext(threadId);
  expect(next.status).toBe(200);
  expect(next.headers.get("x-thread-id")).toBe(threadId);
  const waiting = await readUntil(next, (text) => parseChunks(text).some((chunk) => chunk.type === "data-notice"));
  expect(parseChunks(waiting.text)[0]).toEqual({ type: "data-notice", data: { text: WAITING_NOTICE }, transient: true });
  expect(parseChunks(firstRead.text).some((chunk) => chunk.type === "finish")).toBe(false);
  const [firstChunks, nextChunks] = await Promise.all([restChunks(firstRead), restChunks(waiting)]);
  return { threadId, firstChunks, nextChunks };
}

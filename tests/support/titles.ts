import type pg from "pg";
import type { UIMessageChunk } from "ai";
import type { MockModelServer } from "../../scripts/mock-model-server.mjs";
import { TITLE_INSTRUCTIONS } from "@/lib/model/title-request";

/** The mock model's requests that asked for a thread's title (its instructions come first). */
export function titleRequests(mock: MockModelServer) {
  return (mock.requests as { messages: { role: string; content: unknown }[] }[]).filter((body) => body.messages[0]?.content === TITLE_INSTRUCTIONS);
}

/** The title chunks of a turn's stream. */
export const titleChunks = (chunks: UIMessageChunk[]) => chunks.filter((chunk) => chunk.type === "data-title");

/** The thread's stored title and where it came from. */
export async function storedTitle(pool: pg.Pool, threadId: string) {
  const { rows } = await pool.query<{ title: string; title_source: string }>("SELECT title, title_source FROM threads WHERE id = $1", [threadId]);
  return rows[0];
}

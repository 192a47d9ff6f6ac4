// Turns whatever the chat engine reports as an error into a sentence for the user.
import { fromErrorBody, isErrorBody } from "@threadline/history/errors";

const GENERIC = "Something went wrong. Please try again.";

export function describeChatError(error: Error): string {
  // The engine (lib/client/chat-engine.ts) throws the raw text of a non-2xx answer; ours is a JSON error body.
  const body = parseJson(error.message);
  if (isErrorBody(body)) return fromErrorBody(body).message;
  if (body !== undefined) return GENERIC;
  if (error instanceof TypeError) return "Could not reach the server. Check your connection and try again.";
  // An `error` chunk in the stream carries the server's own errorText: show it unless it is markup.
  const text = error.message.trim();
  if (text.length === 0 || text.length > 500 || text.startsWith("<")) return GENERIC;
  return text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The server refused the turn for the person's budget (429 budget:*): sending it again before the budget renews would be refused again. */
export function isBudgetRefusal(error: Error): boolean {
  const body = parseJson(error.message);
  return isErrorBody(body) && body.error.code.startsWith("budget:");
}

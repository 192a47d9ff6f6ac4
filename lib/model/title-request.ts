// What the model is asked for after a thread's first reply: a short title, as
// a person would name the conversation. The request is a system prompt and one
// user message holding the exchange, so every provider takes it as it is; it
// is marked as a title request by its headers (request-kind.mjs), and the
// offline model answers it with a deterministic title (offline-title.ts).
import { titleFromMessage } from "@threadline/history/title";

export const TITLE_INSTRUCTIONS =
  "You name conversations. Given the first exchange of a conversation between a user and an AI assistant, " +
  "write a title of at most six words that says what it is about, in the conversation's language. Answer with " +
  "the title alone: no quotes, no final punctuation, no preamble.";

/** Each side of the exchange beyond this many characters is cut: the start says what a conversation is about. */
const SIDE_CHARS = 2_000;

const clip = (text: string) => (text.length > SIDE_CHARS ? `${text.slice(0, SIDE_CHARS)}…` : text);

const USER = "User: ";
const ASSISTANT = "\n\nAssistant: ";

/** The user message of a title request: the first message and the reply's text. */
export function titleRequestText(message: string, reply: string): string {
  return `${USER}${clip(message)}${ASSISTANT}${clip(reply)}`;
}

const QUOTES = /^(["'“”‘’«»`]+)([\s\S]*?)(["'“”‘’«»`]+)$/;

/**
 * The title in a model's answer, as plain text on one line and as long as a
 * thread's first-words title may be; null when it holds no letter or digit.
 * Models asked for the title alone still add "Title:" or quotes now and then.
 */
export function modelTitle(answer: string): string | null {
  let text = answer.trim().replace(/^title\s*:\s*/i, "");
  const quoted = QUOTES.exec(text);
  if (quoted) text = quoted[2];
  if (!/[\p{L}\p{N}]/u.test(text)) return null;
  return titleFromMessage(text);
}

/** The first message of a title request's exchange (the text titleRequestText wrote). */
export function titleRequestMessage(requestText: string): string {
  return requestText.startsWith(USER) ? requestText.slice(USER.length).split(ASSISTANT)[0] : requestText;
}

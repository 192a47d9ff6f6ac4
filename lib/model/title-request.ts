// What the model is asked for after a thread's first reply: a short title, as
// a person would name the conversation. The request is a system prompt and one
// user message holding the exchange, so every provider takes it as it is; it
// is marked as a title request by its headers (request-kind.mjs), and the
// offline model answers it with a deterministic title.
import { titleFromMessage } from "@/lib/history/title";

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

/** Words that say little about what a conversation is about: the offline title leaves them out. */
const FILLER = new Set(
  (
    "a an and are be can could do does for from give how i in is it me my of on or please show the this to " +
    "what when where which who why will with would you your tell about hi hello hey there"
  ).split(" "),
);

/** The most words the offline title keeps. */
const OFFLINE_WORDS = 5;

/**
 * The offline model's title: the first few telling words of the user's
 * message, capitalized. Deterministic, so tests and a keyless install see the
 * same title for the same message; "" when the message holds none.
 */
export function offlineTitle(requestText: string): string {
  const message = requestText.startsWith(USER) ? requestText.slice(USER.length).split(ASSISTANT)[0] : requestText;
  const words = message.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  return words
    .filter((word) => !FILLER.has(word.toLowerCase()))
    .slice(0, OFFLINE_WORDS)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(" ");
}

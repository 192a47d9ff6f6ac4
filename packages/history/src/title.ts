const DEFAULT_TITLE_LENGTH = 60;

/** What a thread is called until it has a title of its own, or when its first message has no text to take one from. */
export const UNTITLED_THREAD = "New chat";

/** The text a reader sees in a line of markdown: no markers, link text without its URL. */
function plainLine(line: string): string {
  if (/^\s*\|?[\s:|-]+\|?\s*$/.test(line) && line.includes("-")) return ""; // a table's separator row
  return line
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/, "") // heading, quote, list markers
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // [text](url) and images
    .replace(/(\*\*|__|\*|`+|~~)/g, "") // emphasis, code, strikethrough
    .replace(/\s*\|\s*/g, " "); // table cells
}

/** The default title of a thread: the start of its first user message, as plain text on one line. */
export function titleFromMessage(content: string): string {
  const plain = content
    .split(/\r?\n/)
    .filter((line) => !/^\s*(```|~~~)/.test(line)) // code fence markers
    .map(plainLine)
    .join(" ");
  // eslint-disable-next-line no-control-regex
  const line = plain.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
  if (line.length <= DEFAULT_TITLE_LENGTH) return line || UNTITLED_THREAD;
  const cut = line.slice(0, DEFAULT_TITLE_LENGTH);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > 30 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

const DEFAULT_TITLE_LENGTH = 60;
/** How much of a message its title is looked for in. */
const READ_CHARS = 2_000;

/** What a thread is called until it has a title of its own, or when its first message has no text to take one from. */
export const UNTITLED_THREAD = "New chat";

/**
 * Markup that wraps text in pairs, dropped with the text kept: code spans,
 * strong and emphasis, strikethrough. A marker with no partner, or one with
 * a space on its inner side or a letter or digit on its outer side, is what
 * the person typed ("11 * 11", "2*3*4", "snake_case") and stays.
 */
function unwrap(line: string): string {
  return line
    .replace(/(`+)(.+?)\1/g, "$2")
    .replace(/(?<![\p{L}\p{N}])(\*\*|__)(?=\S)(.+?)(?<=\S)\1(?![\p{L}\p{N}])/gu, "$2")
    .replace(/(?<![\p{L}\p{N}*_])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\p{L}\p{N}*_])/gu, "$2")
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "$1");
}

/** A table's separator row ("|---|:--:|"): what makes the lines around it a table. */
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** The text a reader sees in a line of markdown: no markers, link text without its URL, a table's cells apart. */
function plainLine(line: string, inTable: boolean): string {
  if (inTable && TABLE_SEPARATOR.test(line) && line.includes("-")) return "";
  if (/^\s{0,3}(?:([-*_])(?:\s*\1){2,}|=+)\s*$/.test(line)) return ""; // a rule, a heading's underline
  const text = unwrap(
    line
      .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/, "") // heading, quote, list markers
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1"), // [text](url) and images
  );
  return inTable ? text.replace(/\s*\|\s*/g, " ") : text;
}

/** The default title of a thread: the start of its first user message, as plain text on one line, with every character the person typed that is not markup. */
export function titleFromMessage(content: string): string {
  // The start is what names it; a pair's search is no longer linear, so it reads no further.
  const lines = content.slice(0, READ_CHARS).split(/\r?\n/).filter((line) => !/^\s*(```|~~~)/.test(line)); // code fence markers
  const inTable = lines.some((line) => TABLE_SEPARATOR.test(line) && line.includes("-") && line.includes("|"));
  const plain = lines.map((line) => plainLine(line, inTable && line.includes("|"))).join(" ");
  // eslint-disable-next-line no-control-regex
  const line = plain.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
  // Markers alone ("** ``") say nothing to name a thread by.
  if (/^[\s*_`~]*$/.test(line)) return UNTITLED_THREAD;
  if (line.length <= DEFAULT_TITLE_LENGTH) return line;
  const cut = line.slice(0, DEFAULT_TITLE_LENGTH);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > 30 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

// Most messages are plain prose, and markdown renders prose as nothing more
// than its paragraphs. Such a message is drawn without the markdown stack
// (parser, GFM, sanitizer: the largest part of the chat page's JavaScript),
// so a thread that has none to format never loads it. The rules below are
// deliberately strict: whatever could be markdown (or a GFM autolink) goes
// through the full renderer, so the two always draw a message alike.

// Anywhere in the text: emphasis, code, strikethrough, links, HTML, entities,
// escapes, tables, autolinks; and tabs, carriage returns and control characters.
const INLINE_SYNTAX = /[*_`~[\]<>&\\|@\t\r\0-\x08\x0b-\x1f\x7f]|www\.|:\/\//i;
// At a line's start or end: headings, quotes, lists, setext underlines,
// thematic breaks, indented code, hard line breaks (trailing spaces).
const LINE_SYNTAX = /^(?:[#>+=-]|\d+[.)]|\s)|\s$/;

/**
 * The paragraphs markdown would render `text` as, when that is all it would
 * render (each paragraph's lines joined by "\n", as markdown keeps them);
 * null when the text needs the markdown renderer.
 */
export function plainParagraphs(text: string): string[] | null {
  if (INLINE_SYNTAX.test(text)) return null;
  const paragraphs: string[] = [];
  let lines: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") {
      if (lines.length > 0) paragraphs.push(lines.join("\n"));
      lines = [];
    } else if (LINE_SYNTAX.test(line)) {
      return null;
    } else {
      lines.push(line);
    }
  }
  if (lines.length > 0) paragraphs.push(lines.join("\n"));
  return paragraphs;
}

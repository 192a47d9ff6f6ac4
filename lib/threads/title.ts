const DEFAULT_TITLE_LENGTH = 60;

/** The default title of a thread: the start of its first user message, on one line. */
export function titleFromMessage(content: string): string {
  // eslint-disable-next-line no-control-regex
  const line = content.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
  if (line.length <= DEFAULT_TITLE_LENGTH) return line || "New chat";
  const cut = line.slice(0, DEFAULT_TITLE_LENGTH);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > 30 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

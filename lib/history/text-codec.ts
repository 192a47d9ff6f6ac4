// Postgres text cannot hold U+0000, yet a user can type or paste it. Content
// with a NUL is stored escaped (and flagged); everything else is stored as is,
// so that ordinary rows stay readable and searchable in SQL.

const NUL = "\u0000";

export function encodeContent(text: string): { content: string; escaped: boolean } {
  if (!text.includes(NUL)) return { content: text, escaped: false };
  return { content: text.replace(/\\/g, "\\\\").replace(/\u0000/g, "\\0"), escaped: true };
}

export function decodeContent(content: string, escaped: boolean): string {
  if (!escaped) return content;
  return content.replace(/\\(\\|0)/g, (_, ch: string) => (ch === "0" ? NUL : "\\"));
}

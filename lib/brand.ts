// Threadline's name, colours and mark, in one place for the icons and the web
// app manifest. Isomorphic: plain data and strings.

export const BRAND = {
  name: "Threadline",
  description: "Chat with AI agents that remember: streaming replies, threads saved to Postgres.",
  /** The mark's ground: the dark neutral the composer's buttons and the dark theme use. */
  ink: "#171717",
  /** The thread drawn on it. */
  paper: "#fafafa",
  /** The page's own background in the light theme, the one a launch starts from. */
  background: "#ffffff",
} as const;

/**
 * One thread running back and forth like lines of a conversation, ending in a
 * knot, on a 32-unit square. It stays inside the middle 80% circle, so a
 * launcher may crop the square to any shape (a maskable icon).
 */
const THREAD = "M9 10H21A3 3 0 0 1 21 16H11A3 3 0 0 0 11 22H19.5";
const KNOT = { cx: 23.4, cy: 22, r: 1.7 };

/**
 * The mark as an SVG document. `rounded` for a browser tab, where it stands
 * alone; square for a home screen, whose launcher cuts its own shape.
 */
export function markSvg({ rounded }: { rounded: boolean }): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">`,
    `<rect width="32" height="32" rx="${rounded ? 7 : 0}" fill="${BRAND.ink}"/>`,
    `<path d="${THREAD}" fill="none" stroke="${BRAND.paper}" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>`,
    `<circle cx="${KNOT.cx}" cy="${KNOT.cy}" r="${KNOT.r}" fill="${BRAND.paper}"/>`,
    `</svg>`,
  ].join("");
}

export const markDataUri = (options: { rounded: boolean }) => `data:image/svg+xml;base64,${btoa(markSvg(options))}`;

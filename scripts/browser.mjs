import { existsSync } from "node:fs";

/**
 * A Chromium already on the machine (CHROMIUM_PATH, or a distribution's
 * package), or undefined: then Playwright's own build is used, which
 * `npx playwright install chromium` downloads.
 */
export function systemChromium() {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
  return candidates.find((path) => path && existsSync(path));
}

/**
 * Chromium's flags for the tests and the bench: headless on a build machine
 * (no sandbox, no GPU), and quiet (no background traffic beside the page's own).
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

// Draws the README's screenshot (docs/screenshot.png) from a running app on
// the offline demo: `npm run dev` in one terminal (no model key set), then
// `node scripts/screenshot.mjs [--url=http://localhost:3000]`.
import { chromium } from "playwright";
import { fileURLToPath } from "node:url";
import { CHROMIUM_ARGS, systemChromium } from "./browser.mjs";

const url = process.argv.find((arg) => arg.startsWith("--url="))?.slice(6) ?? "http://localhost:3000";
const out = fileURLToPath(new URL("../docs/screenshot.png", import.meta.url));
const questions = ["What time is it in Tokyo, and what is 17% of 230?"];

const browser = await chromium.launch({ executablePath: systemChromium() ?? undefined, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
  await page.goto(url);
  for (const question of questions) {
    await page.getByRole("textbox", { name: "Message" }).fill(question);
    const reply = page.waitForResponse((response) => new URL(response.url()).pathname === "/api/chat");
    await page.getByRole("button", { name: "Send" }).click();
    await (await reply).finished(); // the stream has ended: the reply is whole
  }
  // The sidebar shows the model's title once it has come.
  await page.waitForTimeout(1_500);
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
}

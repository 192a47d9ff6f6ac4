import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { expectReplyFinished, sendMessage, UUID } from "./helpers";

// Nothing covers the thread: the header (with the thread's Export) and the
// history debug panel take rows of their own, so no part of a message that is
// shown is ever under them, whichever way the thread is scrolled, on a desktop
// window and on a phone, in both colour schemes.

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

interface Layout {
  /** How many messages show at least in part. */
  shown: number;
  /** Each pair of a header box and a shown part of a message that overlap. */
  overlaps: { cover: string; message: string }[];
}

/** The messages shown (each one's box clipped to the list's) and what of them is under a header box. */
function layout(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const covers = [
      ["header", document.querySelector("header")],
      ["history debug panel", document.querySelector('[aria-label="History debug"]')],
    ] as const;
    const list = document.querySelector('[role="log"][aria-label="Conversation"]')?.parentElement;
    if (!list) throw new Error("no conversation on the page");
    const view = list.getBoundingClientRect();
    const found: Layout["overlaps"] = [];
    let shown = 0;
    for (const message of document.querySelectorAll<HTMLElement>('[data-role="user"], [data-role="assistant"]')) {
      const box = message.getBoundingClientRect();
      const top = Math.max(box.top, view.top);
      const bottom = Math.min(box.bottom, view.bottom);
      if (bottom <= top) continue; // scrolled out of sight
      shown += 1;
      for (const [name, cover] of covers) {
        if (!cover) continue;
        const c = cover.getBoundingClientRect();
        if (c.left < box.right && box.left < c.right && c.top < bottom && top < c.bottom) {
          found.push({ cover: name, message: (message.textContent ?? "").slice(0, 40) });
        }
      }
    }
    return { shown, overlaps: found };
  });
}

test.describe("the thread's header", () => {
  let threadId = "";
  // The thread's owner: each test's page signs in as them.
  let owner: Awaited<ReturnType<BrowserContext["cookies"]>> = [];

  test.beforeAll(async ({ browser }, testInfo) => {
    // The layout is the same on both runtimes: one thread, written once.
    if (testInfo.project.name !== "inline") return;
    const context = await browser.newContext({ baseURL: testInfo.project.use.baseURL });
    const page = await context.newPage();
    await page.goto("/");
    for (const text of ["[[long]] the first question", "a second question", "[[long]] a third question"]) {
      const response = await sendMessage(page, text);
      threadId ||= response.headers()["x-thread-id"] ?? "";
      await expectReplyFinished(page);
    }
    expect(threadId).toMatch(UUID);
    owner = await context.cookies();
    await context.close();
  });

  for (const colorScheme of ["light", "dark"] as const) {
    for (const size of SIZES) {
      test(`covers no message at ${size.width}×${size.height} in the ${colorScheme} scheme, at the top, the middle and the end of the thread`, async ({ page }, testInfo) => {
        test.skip(testInfo.project.name !== "inline", "the layout does not depend on the runtime");
        await page.context().addCookies(owner);
        await page.setViewportSize({ width: size.width, height: size.height });
        await page.emulateMedia({ colorScheme });
        await page.goto(`/c/${threadId}?debug=true`);
        await expect(page.getByRole("region", { name: "History debug" })).toBeVisible();
        // Export is in the header, named the same on a phone, where only its icon shows.
        const exportButton = page.getByRole("banner").getByRole("button", { name: "Export" });
        await expect(exportButton).toBeVisible();

        const list = page.getByRole("log", { name: "Conversation" }).locator("..");
        const { scrollHeight, clientHeight } = await list.evaluate((el) => ({ scrollHeight: el.scrollHeight, clientHeight: el.clientHeight }));
        expect(scrollHeight, "the thread is longer than the window").toBeGreaterThan(clientHeight * 3);
        for (const at of [0, 0.5, 1]) {
          await list.evaluate((el, fraction) => (el.scrollTop = (el.scrollHeight - el.clientHeight) * fraction), at);
          const seen = await layout(page);
          expect(seen.shown, `messages shown, scrolled to ${at * 100}%`).toBeGreaterThan(0);
          expect(seen.overlaps, `scrolled to ${at * 100}%`).toEqual([]);
        }

        // Its menu still opens over the thread, as a menu does, and closes again.
        await exportButton.click();
        await expect(page.getByRole("link", { name: "Export as JSON" })).toBeVisible();
        await page.keyboard.press("Escape");
        await expect(page.getByRole("link", { name: "Export as JSON" })).toBeHidden();
      });
    }
  }
});

import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { expectNoSeriousViolations } from "./axe";
import { UUID, assistantMessages, expectReplyFinished, lastReply, sendMessage, threadAlert, userMessages } from "./helpers";
import { SECRETS, SHOWN, sharedThreadFile } from "../support/shared-thread";

// Share links as people use them: the owner makes one from the thread's
// header with the options they pick; a stranger's browser, with no cookie,
// reads what the link shows and nothing it hides (not even in the page's
// HTML), and can continue the conversation as their own; the owner revokes
// it on Shared links and the link answers 410. One thread, imported once per
// project (tests/support/shared-thread.ts: a secret in every hidden place),
// and one link, made by the first test and used by the next two.

/** What this link shows: the options picked in the dialog below. */
const SHOWN_SECRETS: string[] = [SECRETS.reasoning, SECRETS.attachment, SECRETS.document];
/** Everything else: what the options hid, and what no link ever holds. */
const HIDDEN_SECRETS = Object.values(SECRETS).filter((secret) => !SHOWN_SECRETS.includes(secret));

const SHARE_URL = /^http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]{43}$/;

/** A browser of somebody else's: no cookie, a phone's screen. */
const stranger = (browser: Browser, baseURL: string | undefined) => browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });

test.describe.serial("a share link", () => {
  let owner: BrowserContext;
  let ownerPage: Page;
  let threadId = "";
  let shareUrl = "";

  test.beforeAll(async ({ browser }, testInfo) => {
    owner = await browser.newContext({ baseURL: testInfo.project.use.baseURL });
    await owner.grantPermissions(["clipboard-read", "clipboard-write"]);
    ownerPage = await owner.newPage();
    await ownerPage.goto("/"); // the owner's identity
    const imported = await ownerPage.request.post("/api/threads/import", { data: sharedThreadFile() });
    expect(imported.status(), await imported.text()).toBe(201);
    threadId = ((await imported.json()) as { thread: { id: string } }).thread.id;
  });

  test.afterAll(async () => {
    await owner?.close();
  });

  test("made from Share… with the owner's options, opens for a stranger without a cookie, showing what they chose and nothing they hid", async ({ browser, baseURL }) => {
    const page = ownerPage;
    await page.goto(`/c/${threadId}`);
    await expect(assistantMessages(page).first()).toContainText(SHOWN.answer);

    // A real modal dialog: the focus goes in, Escape closes it, the focus comes back.
    const share = page.getByRole("button", { name: "Share…" });
    await share.click();
    const dialog = page.getByRole("dialog", { name: "Share conversation" });
    await expect(dialog.getByLabel("Expires")).toBeFocused();
    await expect(dialog).toContainText("snapshot of this conversation as it is now");
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await expectNoSeriousViolations(page, `Share conversation dialog (${colorScheme} scheme)`);
    }
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(share).toBeFocused();

    await share.click();
    await expect(dialog.getByLabel("Include documents")).toBeChecked();
    for (const off of ["Include attachments", "Show tool details", "Show reasoning"]) await expect(dialog.getByLabel(off)).not.toBeChecked();
    await dialog.getByLabel("Expires").selectOption({ label: "30 days" });
    await dialog.getByLabel("Include attachments").check();
    await dialog.getByLabel("Show reasoning").check();
    await dialog.getByRole("button", { name: "Create link" }).click();
    const linkField = dialog.getByRole("textbox", { name: "Link" });
    await expect(linkField).toBeFocused();
    shareUrl = await linkField.inputValue();
    expect(shareUrl).toMatch(SHARE_URL);
    await dialog.getByRole("button", { name: "Copy link" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(shareUrl);
    await expect(dialog.getByRole("link", { name: "Shared links" })).toHaveAttribute("href", "/shares");
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toBeHidden();

    const elsewhere = await stranger(browser, baseURL);
    try {
      const viewer = await elsewhere.newPage();
      const violations: string[] = [];
      viewer.on("console", (message) => {
        if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
      });
      const response = (await viewer.goto(shareUrl))!;
      expect(response.status()).toBe(200);
      expect(response.headers()["x-robots-tag"]).toContain("noindex");
      await expect(viewer.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
      await expect(viewer.getByRole("heading", { level: 1, name: "Multiplication" })).toBeVisible();

      // What the options show: the messages, the image, the reasoning, the document; a hidden call by its name.
      const messages = viewer.getByRole("list", { name: "Messages" });
      await expect(messages).toContainText(SHOWN.question);
      await expect(messages).toContainText(SHOWN.answer);
      await expect(messages).toContainText("You are welcome.");
      await expect(messages.getByText("Used calculate")).toBeVisible();
      const image = messages.getByRole("img", { name: SECRETS.attachment });
      await expect(image).toBeVisible();
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(4);
      await messages.getByRole("button", { name: /^Thought for/ }).click();
      await expect(messages.getByRole("region", { name: "Reasoning" })).toContainText(SECRETS.reasoning);
      const documents = viewer.getByRole("complementary", { name: "Documents" });
      await expect(documents.getByRole("region", { name: SHOWN.documentTitle })).toContainText(SECRETS.document);
      await expect(viewer.getByRole("link", { name: "Download as Markdown" })).toBeVisible();

      // What they hid is nowhere in the page, not even in the data it hydrates from.
      const html = await viewer.content();
      for (const secret of HIDDEN_SECRETS) expect(html, secret).not.toContain(secret);
      expect(await elsewhere.cookies()).toEqual([]);

      // A phone holds it without scrolling sideways, and it reads in both schemes.
      expect(await viewer.evaluate(() => document.scrollingElement!.scrollWidth <= document.scrollingElement!.clientWidth)).toBe(true);
      for (const colorScheme of ["light", "dark"] as const) {
        await viewer.emulateMedia({ colorScheme });
        await expectNoSeriousViolations(viewer, `the shared page (${colorScheme} scheme)`);
      }
      expect(violations).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  test("Continue this conversation gives a stranger a thread of their own, holding the messages, to write in", async ({ browser, baseURL }) => {
    const elsewhere = await stranger(browser, baseURL);
    try {
      const page = await elsewhere.newPage();
      await page.goto(shareUrl);
      await page.getByRole("button", { name: "Continue this conversation" }).click();
      await expect(page).toHaveURL(/\/c\/[0-9a-f-]{36}$/);
      const theirs = new URL(page.url()).pathname.split("/").at(-1)!;
      expect(theirs).toMatch(UUID);
      expect(theirs).not.toBe(threadId);
      await expect(userMessages(page).first()).toContainText(SHOWN.question);
      await expect(assistantMessages(page).first()).toContainText(SHOWN.answer);

      const text = "And seven times eight?";
      await sendMessage(page, text);
      await expect(lastReply(page)).toContainText(`You said: "${text}"`);
      await expectReplyFinished(page);
      await expect(threadAlert(page)).toHaveCount(0);
    } finally {
      await elsewhere.close();
    }
  });

  test("revoked on Shared links, it leaves the list at once", async () => {
    const page = ownerPage;
    await page.goto(`/c/${threadId}`);
    // AUTH_MODE=open has no account menu: the sidebar leads there.
    await page.getByRole("link", { name: "Shared links" }).click();
    await expect(page).toHaveURL("/shares");
    await expect(page.getByRole("heading", { level: 1, name: "Shared links" })).toBeVisible();
    const row = page.getByRole("list", { name: "Your shared links" }).getByRole("listitem").filter({ hasText: "Multiplication" });
    await expect(row).toHaveCount(1);
    await expect(row.getByRole("link", { name: "Multiplication" })).toHaveAttribute("href", `/c/${threadId}`);
    await expect(row).toContainText("Includes documents, attachments, reasoning");
    await expect(row).toContainText(/Expires /);
    await expect(row).toContainText(/[1-9]\d* views?/); // the strangers' visits
    await row.getByRole("button", { name: "Revoke" }).click();
    await expect(row).toHaveCount(0);
    await expect(page.getByText("You have no shared links.")).toBeVisible();
    await page.reload();
    await expect(page.getByText("You have no shared links.")).toBeVisible();
  });

  test("a revoked link answers 410 and says it is no longer available", async ({ browser, baseURL }) => {
    const elsewhere = await stranger(browser, baseURL);
    try {
      const viewer = await elsewhere.newPage();
      const response = (await viewer.goto(shareUrl))!;
      expect(response.status()).toBe(410);
      await expect(viewer.getByRole("heading", { name: "This link is no longer available" })).toBeVisible();
      expect(await viewer.content()).not.toContain(SHOWN.answer);
      expect(await elsewhere.cookies()).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });
});

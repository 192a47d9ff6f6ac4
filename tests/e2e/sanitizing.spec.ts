import { expect, test, type Page } from "@playwright/test";
import { expectReplyFinished, lastReply, sendMessage, uniqueToken, userMessages } from "./helpers";

// Markup from the model or the user must render as content, never run.
async function expectNothingInjected(page: Page): Promise<void> {
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
  await expect(page.locator("[data-role] script")).toHaveCount(0);
  await expect(page.locator("[data-role] [onerror]")).toHaveCount(0);
}

test("markdown renders, while HTML in replies and user messages stays inert", async ({ page }) => {
  await page.goto("/");
  const token = uniqueToken();
  await sendMessage(page, `[[markdown]] format this ${token}`);

  const reply = lastReply(page);
  await expect(reply.locator("strong", { hasText: "bold text" })).toBeVisible();
  await expect(reply.locator("li")).toHaveText(["first item", "second item"]);
  await expect(reply.locator("pre code")).toContainText('console.log("fenced code");');
  await expect(reply).toContainText("Raw HTML that must stay inert");
  await expectReplyFinished(page);
  await expectNothingInjected(page);

  const hostile = `<img src=x onerror="window.__xss=2"> hostile ${token}`;
  await sendMessage(page, hostile);
  await expect(userMessages(page).last()).toContainText(`hostile ${token}`);
  // The mock echoes the tag back, so the reply renderer meets it too. Only the
  // reply's tail is predictable: how the tag itself is shown is the renderer's choice.
  await expect(lastReply(page)).toContainText("I can see 2 user message(s) and 1 assistant message(s)");
  await expectReplyFinished(page);
  await expectNothingInjected(page);
});

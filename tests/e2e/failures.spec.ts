import { expect, test } from "@playwright/test";
import { UUID, expectReplyFinished, sendMessage, threadAlert, uniqueToken, userMessages } from "./helpers";

test("a model failure shows an error in the thread and keeps the user's message", async ({ page }) => {
  await page.goto("/");
  const message = `[[error]] please fail ${uniqueToken()}`;
  const response = await sendMessage(page, message);
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);

  // The provider retries a 500 with backoff before giving up, hence the longer wait.
  await expect(threadAlert(page).first()).toBeVisible({ timeout: 30_000 });
  await expectReplyFinished(page);

  await page.goto(`/c/${threadId}`);
  await expect(userMessages(page)).toContainText([message]);
});

import { expect, test } from "@playwright/test";
import { composer, isChatPost, uniqueToken, userMessages } from "./helpers";

test("Shift+Enter starts a new line instead of sending", async ({ page }) => {
  const chatPosts: string[] = [];
  page.on("request", (request) => {
    if (isChatPost(request)) chatPosts.push(request.url());
  });
  await page.goto("/");
  const firstLine = `first line ${uniqueToken()}`;

  await composer(page).fill(firstLine);
  await composer(page).press("Shift+Enter");
  await composer(page).pressSequentially("second line");

  // Had Shift+Enter sent the message, the composer would hold only "second line".
  await expect(composer(page)).toHaveValue(`${firstLine}\nsecond line`);
  await expect(userMessages(page)).toHaveCount(0);
  expect(chatPosts).toEqual([]);

  // Enter then sends both lines as one message.
  await composer(page).press("Enter");
  await expect(userMessages(page)).toHaveCount(1);
  await expect(userMessages(page).first()).toContainText(firstLine);
  await expect(userMessages(page).first()).toContainText("second line");
  await expect(composer(page)).toHaveValue("");
});

import { expect, test } from "@playwright/test";
import { startThread, threadAlert, threadLink, uniqueToken } from "./helpers";

test("a one-time link carries a visitor's chats to another browser, and works only once", async ({ page, browser, baseURL }) => {
  await page.goto("/");
  const mine = `carried chat ${uniqueToken()}`;
  await startThread(page, mine);

  await page.getByRole("button", { name: "Use on another device" }).click();
  const dialog = page.getByRole("dialog", { name: "Use on another device" });
  await dialog.getByRole("button", { name: "Make a link" }).click();
  const link = await dialog.getByRole("textbox", { name: "Device link" }).inputValue();
  expect(link).toMatch(new RegExp(`^${baseURL}/link#[A-Za-z0-9_-]{43}$`));

  // Another browser: a context with no cookies, an identity of its own.
  const elsewhere = await browser.newContext({ baseURL });
  try {
    const other = await elsewhere.newPage();
    await other.goto("/");
    await expect(threadLink(other, mine)).toHaveCount(0);
    await other.goto(link);
    await other.getByRole("button", { name: "Use my chats here" }).click();
    await expect(other).toHaveURL(`${baseURL}/`);
    await expect(threadLink(other, mine)).toBeVisible();

    // The link is spent: a third browser gets an explanation, not the chats.
    const third = await browser.newContext({ baseURL });
    const thirdPage = await third.newPage();
    await thirdPage.goto(link);
    await thirdPage.getByRole("button", { name: "Use my chats here" }).click();
    await expect(threadAlert(thirdPage)).toContainText("used, revoked or has expired");
    await thirdPage.goto("/");
    await expect(threadLink(thirdPage, mine)).toHaveCount(0);
    await third.close();
  } finally {
    await elsewhere.close();
  }
});

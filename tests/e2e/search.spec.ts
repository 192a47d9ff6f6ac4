import { expect, test } from "@playwright/test";
import { composer, startThread, threadsNav, uniqueToken } from "./helpers";

// The sidebar's search finds an older thread by a word said in it and opens
// the thread at that message.

test("searching the sidebar finds a word from an older thread and opens it at the message", async ({ page }) => {
  await page.goto("/");
  const word = `axolotl${uniqueToken().replace(/[^a-z0-9]/gi, "").slice(0, 8)}`;
  const older = await startThread(page, `Tell me about the ${word} that lives in my pond`);
  // A few more turns, so that the matching message is not at the end.
  for (let i = 0; i < 6; i++) await startThreadTurn(page, `filler message ${i} ${uniqueToken()}`);
  await page.getByRole("button", { name: "New chat" }).click();
  await startThread(page, `something else entirely ${uniqueToken()}`);

  const search = page.getByRole("searchbox", { name: "Search threads" });
  await search.fill(word);
  const results = page.getByRole("region", { name: "Search results" });
  const hit = results.getByRole("link").first();
  await expect(hit).toContainText(word);
  await expect(hit.locator("mark")).toHaveText(word);
  await expect(threadsNav(page)).toBeHidden();
  await hit.click();

  await expect(page).toHaveURL(new RegExp(`/c/${older}#message-`));
  const found = page.locator('[data-found="true"]');
  await expect(found).toContainText(word);
  await expect(found).toBeInViewport();

  // Clearing the box brings the thread list back.
  await search.fill("");
  await expect(threadsNav(page)).toBeVisible();
});

/** One more message in the open thread, waiting for its reply. */
async function startThreadTurn(page: import("@playwright/test").Page, text: string) {
  await composer(page).fill(text);
  await composer(page).press("Enter");
  await expect(page.locator('[data-role="assistant"]').last()).toContainText(`You said: "${text}"`);
  await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
}

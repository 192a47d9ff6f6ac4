import { expect, test, type Page } from "@playwright/test";
import { OPERATOR_APP_URL } from "../../scripts/e2e-env.mjs";
import { expectReplyFinished, ONCE_PROJECT, sendMessage, uniqueToken, userMessages, UUID } from "./helpers";

// A long thread is compacted after a turn, and the thread shows where: a
// marker that opens to the summary. The operator's app compacts early (over 6
// messages, down to 4, the last user turn kept) so a few messages are enough.

test.use({ baseURL: OPERATOR_APP_URL });

const marker = (page: Page) => page.getByRole("button", { name: "Earlier messages summarized" });
const summary = (page: Page) => page.getByRole("region", { name: "Summary of earlier messages" });

async function summarized(page: Page, threadId: string): Promise<void> {
  // Compaction runs after the turn, for the next one: wait until the thread holds a summary.
  await expect
    .poll(async () => {
      const response = await page.request.get(`/api/threads/${threadId}/timeline`);
      const { parts } = (await response.json()) as { parts: { type: string }[] };
      return parts.filter((part) => part.type === "system-event").length;
    })
    .toBe(1);
}

test("a long thread shows where it was summarized, live and after a reload, and keeps every message", async ({ page }, testInfo) => {
  test.skip(testInfo.project.name !== ONCE_PROJECT, "one operator app serves both projects");
  const words = Array.from({ length: 5 }, (_, i) => `note${i + 1} ${uniqueToken()}`);
  await page.goto("/");
  for (const word of words.slice(0, 4)) {
    await sendMessage(page, word);
    await expectReplyFinished(page);
  }
  const threadId = new URL(page.url()).pathname.split("/").pop()!;
  expect(threadId).toMatch(UUID);
  await expect(marker(page)).toHaveCount(0);
  await summarized(page, threadId);

  // The next reply tells the page about the summary, and the marker joins the thread before that message.
  await sendMessage(page, words[4]);
  await expectReplyFinished(page);
  await expect(marker(page)).toBeVisible();
  const order = await page.locator("[data-role]").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-role")));
  expect(order.slice(-3)).toEqual(["system", "user", "assistant"]);

  await expect(summary(page)).toBeHidden();
  await marker(page).click();
  await expect(marker(page)).toHaveAttribute("aria-expanded", "true");
  // The mock model's summary quotes the user's lines it was given: the first three turns.
  for (const word of words.slice(0, 3)) await expect(summary(page)).toContainText(`said ${word}`);
  await expect(summary(page)).not.toContainText(words[3]);

  await page.reload();
  await expect(marker(page)).toBeVisible();
  await expect(userMessages(page)).toHaveText(words);
});

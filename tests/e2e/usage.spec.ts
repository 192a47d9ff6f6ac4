import { expect, test } from "@playwright/test";
import { expectReplyFinished, lastReply, regenerateWith, sendMessage, uniqueToken } from "./helpers";

// What a conversation spent, in the page: a reply's "Usage" shows its tokens
// and cost by agent (the suite's "Mock model" is priced at $1 in and $2 out
// per million tokens, "Mock model B" has no price), and the thread's menu its
// total, every version counted.
const COSTED = /^[\d,]+ tokens · (\$0\.\d{4}|< \$0\.0001)$/;

test("a reply's Usage shows its tokens and cost by agent; the thread's menu its total, a regenerate counted too", async ({ page }) => {
  await page.goto("/");
  await sendMessage(page, `[[call:calculate:{"expression":"6 * 7"}]] ${uniqueToken()}`);
  await expect(lastReply(page)).toContainText("Tool results: calculate");
  await expectReplyFinished(page);
  const usage = lastReply(page).getByRole("button", { name: "Usage" });
  await usage.click();
  const panel = page.getByRole("region", { name: "Usage of this reply" });
  await expect(panel).toBeVisible();
  await expect(panel.locator("p").first()).toHaveText(COSTED);
  // Triage handed over, Researcher called the tool and answered: in the order they spoke.
  await expect.poll(async () => await panel.getByRole("term").allInnerTexts()).toEqual(["Triage", "Researcher"]);
  const replyTokens = Number((await panel.locator("p").first().innerText()).split(" ")[0].replaceAll(",", ""));
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
  await expect(usage).toBeFocused();

  // The thread's menu: its total is at least the reply's (the title's call joins it once the title is written).
  await page.getByRole("button", { name: "Export" }).click();
  const total = page.locator("[data-thread-usage]");
  await expect(total).toHaveText(/^This thread: [\d,]+ tokens · /);
  const before = Number((await total.innerText()).match(/([\d,]+) tokens/)![1].replaceAll(",", ""));
  expect(before).toBeGreaterThanOrEqual(replyTokens);
  await page.keyboard.press("Escape");

  // A regenerate by the unpriced model: its reply shows tokens without a cost, and the thread's total grows and has none.
  await regenerateWith(page, "Mock model B");
  await expectReplyFinished(page);
  await lastReply(page).getByRole("button", { name: "Usage" }).click();
  await expect(page.getByRole("region", { name: "Usage of this reply" }).locator("p").first()).toHaveText(/^[\d,]+ tokens$/);
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "Export" }).click();
  await expect(total).toHaveText(/^This thread: [\d,]+ tokens$/);
  const after = Number((await total.innerText()).match(/([\d,]+) tokens/)![1].replaceAll(",", ""));
  expect(after).toBeGreaterThan(before);
});

import { expect, test, type Page } from "@playwright/test";
import { assistantMessages, expectReplyFinished, lastReply, sendMessage, threadsNav, uniqueToken } from "./helpers";

// A reminder the user approved: the sidebar lists it under its thread until
// it is due; at its time it arrives in the page that is open on the thread,
// once, without a reload, and leaves the list.

const approvalCard = (page: Page) => lastReply(page).getByRole("group", { name: /^Waiting for your approval/ });
const reminders = (page: Page) => threadsNav(page).getByRole("list", { name: /^Reminders: / });

test("an approved reminder is listed under its thread, then arrives in the open page at its time, once", async ({ page }) => {
  test.setTimeout(120_000);
  const text = `stretch ${uniqueToken()}`;
  // Far enough ahead to be listed first, near enough for a test to wait for.
  const at = new Date(Date.now() + 30_000).toISOString();
  await page.goto("/");
  await sendMessage(page, `remind me [[call:schedule_reminder:${JSON.stringify({ at, text })}]]`);
  await expect(approvalCard(page)).toBeVisible({ timeout: 30_000 });
  await approvalCard(page).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(lastReply(page).locator(".markdown")).toContainText("schedule_reminder →", { timeout: 30_000 });
  await expectReplyFinished(page);

  await expect(reminders(page)).toContainText(text);
  await expect(reminders(page).getByRole("listitem")).toHaveCount(1);

  // It arrives as the agent's message, where the user is.
  const arrived = assistantMessages(page).filter({ hasText: `Reminder: ${text}` });
  await expect(arrived).toHaveCount(1, { timeout: 60_000 });
  await expect(assistantMessages(page)).toHaveCount(2);
  await expect(reminders(page)).toHaveCount(0);

  // It answers no message: it offers no Regenerate, live or after a reload.
  await expect(arrived.getByRole("button", { name: "Copy" })).toBeVisible();
  await expect(arrived.getByRole("button", { name: "Regenerate" })).toHaveCount(0);

  await page.reload();
  await expect(assistantMessages(page)).toHaveCount(2);
  await expect(arrived).toHaveCount(1);
  await expect(reminders(page)).toHaveCount(0);
  await expect(arrived.getByRole("button", { name: "Copy" })).toBeVisible();
  await expect(arrived.getByRole("button", { name: "Regenerate" })).toHaveCount(0);

  // The next message is answered as any other, and its reply is the one to regenerate.
  await sendMessage(page, "thanks");
  await expectReplyFinished(page);
  await expect(assistantMessages(page)).toHaveCount(3);
  await expect(lastReply(page).getByRole("button", { name: "Regenerate" })).toBeVisible();
});

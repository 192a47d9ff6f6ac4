import { expect, test, type Page } from "@playwright/test";
import { assistantMessages, expectReplyFinished, lastReply, sendMessage } from "./helpers";

// Triage calls Researcher as a sub-agent: the reply shows the call as one
// collapsed line named "Researcher (sub-agent)" that the keyboard opens, with
// the task, what Researcher did (its own tool call) and its result inside;
// Triage's answer stays outside, live and after a reload. A call of
// Researcher's that asks first shows its approval card inside the call.

const TASK = '[[call:calculate:{"expression":"6 * 7"}]]';
const callsResearcher = (task: string) => `[[call:call_agent:${JSON.stringify({ agent: "Researcher", task })}]]`;

const subAgentCall = (page: Page) => lastReply(page).getByRole("group", { name: "Researcher (sub-agent)" });
const toggle = (page: Page) => subAgentCall(page).getByRole("button", { name: "Researcher (sub-agent)" });

async function expectNestedCall(page: Page): Promise<void> {
  await expect(toggle(page)).toHaveAttribute("aria-expanded", "false");
  await expect(subAgentCall(page)).toContainText("Done");
  // Collapsed: what Researcher did is not on the page, and Triage's answer is.
  await expect(subAgentCall(page).getByRole("group", { name: "Tool: calculate" })).toHaveCount(0);
  await expect(lastReply(page).getByRole("group", { name: "Tool: calculate" })).toHaveCount(0);
  await expect(lastReply(page).locator(".markdown").last()).toContainText("call_agent →");
  // Opened by keyboard: the task, Researcher's own call, and its result.
  await toggle(page).focus();
  await page.keyboard.press("Enter");
  await expect(toggle(page)).toHaveAttribute("aria-expanded", "true");
  await expect(subAgentCall(page)).toContainText("Task");
  await expect(subAgentCall(page)).toContainText("6 * 7");
  await expect(subAgentCall(page).getByRole("group", { name: "Tool: calculate" })).toContainText("Done");
  await expect(subAgentCall(page)).toContainText("Result");
  await page.keyboard.press("Space");
  await expect(toggle(page)).toHaveAttribute("aria-expanded", "false");
  await expect(subAgentCall(page).getByRole("group", { name: "Tool: calculate" })).toHaveCount(0);
}

test("a sub-agent's call is one collapsed line that the keyboard opens, with the task, its own call and its result, live and after a reload", async ({ page }) => {
  await page.goto("/");
  await sendMessage(page, callsResearcher(TASK));
  await expectReplyFinished(page);
  // No section of its own: the sub-agent speaks only inside the call.
  await expect(lastReply(page).getByText("Researcher", { exact: true })).toHaveCount(0);
  await expectNestedCall(page);

  await page.reload();
  await expect(assistantMessages(page)).toHaveCount(1);
  await expectNestedCall(page);
});

test("a sub-agent's call that asks first shows its card inside the call; Approve lets the sub-agent and then the caller go on", async ({ page }) => {
  const at = `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 19)}+00:00`;
  const task = `[[call:schedule_reminder:${JSON.stringify({ at, text: "water the plants" })}]]`;
  await page.goto("/");
  await sendMessage(page, callsResearcher(task));
  await expectReplyFinished(page);

  // Open by itself: the decision is inside it.
  const card = subAgentCall(page).getByRole("group", { name: /^Waiting for your approval/ });
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(subAgentCall(page)).toContainText("Waiting for your approval");
  await expect(toggle(page)).toHaveAttribute("aria-expanded", "true");

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(lastReply(page).locator(".markdown").last()).toContainText("call_agent →", { timeout: 30_000 });
  await expectReplyFinished(page);
  await expect(subAgentCall(page)).toContainText("Done");
  await expect(assistantMessages(page)).toHaveCount(1);

  await page.reload();
  await expect(toggle(page)).toHaveAttribute("aria-expanded", "false");
  await toggle(page).click();
  await expect(subAgentCall(page).getByRole("group", { name: "Tool: schedule_reminder" })).toContainText("Approved");
});

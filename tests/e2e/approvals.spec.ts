import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { assistantMessages, expectReplyFinished, lastReply, sendMessage, threadAlert, uniqueToken, UUID } from "./helpers";

// A tool call that asks first (schedule_reminder asks on every runtime): the
// reply waits with a card to decide on; Approve or Deny sends the decision
// and the same reply goes on in place, once, live and after a reload; a
// reload while it waits still offers the decision; a decision made in
// another window shows here, and a card decided there says so; a reply with
// two such calls goes on once both are decided; a new message skips a call
// that still waits.

const approvalCard = (page: Page) => lastReply(page).getByRole("group", { name: /^Waiting for your approval/ });
const reminderCard = (page: Page) => lastReply(page).getByRole("group", { name: "Tool: schedule_reminder" });
const approveButton = (page: Page) => approvalCard(page).getByRole("button", { name: "Approve", exact: true });
const denyButton = (page: Page) => approvalCard(page).getByRole("button", { name: "Deny", exact: true });
const reasonBox = (page: Page) => approvalCard(page).getByRole("textbox", { name: "Reason", exact: true });

/** A reminder a day from now: a time the tool takes. */
function reminderCall(text: string): string {
  const at = `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 19)}+00:00`;
  return `[[call:schedule_reminder:${JSON.stringify({ at, text })}]]`;
}

/** A new thread whose reply waits for the approval of a reminder; returns its id. */
async function waitingThread(page: Page, text = `stretch ${uniqueToken()}`): Promise<string> {
  await page.goto("/");
  const response = await sendMessage(page, `remind me ${reminderCall(text)}`);
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);
  await expect(approvalCard(page)).toBeVisible({ timeout: 30_000 });
  await expectReplyFinished(page);
  return threadId;
}

async function expectNoSeriousViolations(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).include('[data-role="assistant"]').analyze();
  const serious = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious, what).toEqual([]);
}

test("a waiting call is decided with the keyboard: Approve runs it and the same reply goes on, once, live and after a reload", async ({ page }) => {
  const threadId = await waitingThread(page, "drink water");
  const card = approvalCard(page);
  await expect(card).toContainText("schedule_reminder");
  await expect(card).toContainText('"text": "drink water"');
  await expect(lastReply(page)).not.toContainText("Stopped");
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await expectNoSeriousViolations(page, `the approval card (${colorScheme} scheme)`);
  }

  await reasonBox(page).focus();
  await page.keyboard.type("fine by me");
  await page.keyboard.press("Tab");
  await expect(approveButton(page)).toBeFocused();
  const decided = page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes(`/api/threads/${threadId}/approvals/`));
  await page.keyboard.press("Enter");
  expect((await decided).status()).toBe(202);

  await expect(lastReply(page).locator(".markdown")).toContainText("Tool results: schedule_reminder →", { timeout: 30_000 });
  await expectReplyFinished(page);
  await expect(approvalCard(page)).toHaveCount(0);
  await expect(reminderCard(page)).toContainText("Approved");
  await expect(reminderCard(page)).toContainText("Done");
  await expect(assistantMessages(page)).toHaveCount(1);
  const live = (await lastReply(page).textContent()) ?? "";

  await page.reload();
  await expect(reminderCard(page)).toContainText("Done");
  await expect(assistantMessages(page)).toHaveCount(1);
  expect(await lastReply(page).textContent()).toBe(live);
});

test("Deny with a reason: the buttons wait while it is sent, the call never runs and the agent reads why", async ({ page }) => {
  const threadId = await waitingThread(page);
  // The decision is held until the test has seen the buttons wait.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/api/threads/${threadId}/approvals/*`, async (route) => {
    await held;
    await route.continue();
  });

  await reasonBox(page).fill("not today");
  await denyButton(page).click();
  await expect(approveButton(page)).toBeDisabled();
  await expect(denyButton(page)).toBeDisabled();
  release();

  await expect(lastReply(page).locator(".markdown")).toContainText("The user denied this: not today", { timeout: 30_000 });
  await expectReplyFinished(page);
  await expect(reminderCard(page)).toContainText("Denied: not today");
  await expect(assistantMessages(page)).toHaveCount(1);

  await page.reload();
  await expect(reminderCard(page)).toContainText("Denied: not today");
  await expect(lastReply(page).locator(".markdown")).toContainText("The user denied this: not today");
});

test("a failed decision says why and gives the buttons back", async ({ page }) => {
  const threadId = await waitingThread(page);
  await page.route(`**/api/threads/${threadId}/approvals/*`, (route) =>
    route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "unavailable:database", message: "The database is unavailable. Try again shortly." } }) }),
  );
  await approveButton(page).click();
  await expect(approvalCard(page).getByRole("alert")).toHaveText("The database is unavailable. Try again shortly.");
  await expect(approveButton(page)).toBeEnabled();
  await expect(denyButton(page)).toBeEnabled();
  await expect(threadAlert(page)).toHaveCount(1);
});

test("a reload while the reply waits still offers the decision, not a stopped call", async ({ page }) => {
  await waitingThread(page);
  await page.reload();
  await expect(approvalCard(page)).toBeVisible();
  await expect(approveButton(page)).toBeEnabled();
  await expect(lastReply(page)).not.toContainText("Stopped");
  await approveButton(page).click();
  await expect(reminderCard(page)).toContainText("Done", { timeout: 30_000 });
  await expect(assistantMessages(page)).toHaveCount(1);
});

test("a decision made in another window shows here; a card decided there says so when pressed", async ({ page, browser }) => {
  const threadId = await waitingThread(page);
  // Another device of the same identity: its own window, so it shares no tab's news or stream.
  const elsewhere = await browser.newContext({ baseURL: new URL(page.url()).origin });
  await elsewhere.addCookies(await page.context().cookies());
  const other = await elsewhere.newPage();
  await other.goto(`/c/${threadId}`);
  await expect(approvalCard(other)).toBeVisible();

  // Approved here: the other window hears of it and follows the reply going on.
  await approveButton(page).click();
  await expect(reminderCard(page)).toContainText("Done", { timeout: 30_000 });
  await expect(reminderCard(other)).toContainText("Done", { timeout: 30_000 });
  await expect(approvalCard(other)).toHaveCount(0);
  await expect(assistantMessages(other)).toHaveCount(1);

  // A second waiting reply, which the other window no longer hears of: it shows a card already decided here.
  await other.route("**/api/threads/events", (route) => route.abort());
  await other.reload();
  await sendMessage(page, `again ${reminderCall(`walk ${uniqueToken()}`)}`);
  await expect(approvalCard(page)).toBeVisible({ timeout: 30_000 });
  await expectReplyFinished(page);
  await other.reload();
  await expect(approvalCard(other)).toBeVisible();
  await denyButton(page).click();
  await expect(reminderCard(page)).toContainText("Denied", { timeout: 30_000 });

  await approveButton(other).click();
  await expect(threadAlert(other).filter({ hasText: "already decided" })).toBeVisible();
  // It catches up from the server: the call as it was decided.
  await expect(reminderCard(other)).toContainText("Denied", { timeout: 30_000 });
  await elsewhere.close();
});

test("a reply with two calls that ask goes on once both are decided; the first shows decided meanwhile, after a reload too", async ({ page }) => {
  await page.goto("/");
  await sendMessage(page, `two reminders ${reminderCall(`first ${uniqueToken()}`)} ${reminderCall(`second ${uniqueToken()}`)}`);
  await expect(approvalCard(page)).toHaveCount(2, { timeout: 30_000 });
  await expectReplyFinished(page);

  await approvalCard(page).first().getByRole("button", { name: "Approve", exact: true }).click();
  await expect(approvalCard(page)).toHaveCount(1);
  await expect(reminderCard(page).first()).toContainText("Approved");
  await expect(assistantMessages(page)).toHaveCount(1);
  // Drawn again from the server: the first still shows decided, only the second asks.
  await page.reload();
  await expect(approvalCard(page)).toHaveCount(1);
  await expect(reminderCard(page).first()).toContainText("Approved");

  await denyButton(page).click();
  await expect(lastReply(page).locator(".markdown")).toContainText("Tool results:", { timeout: 30_000 });
  await expectReplyFinished(page);
  await expect(reminderCard(page).first()).toContainText("Done");
  await expect(reminderCard(page).last()).toContainText("Denied");
  await expect(assistantMessages(page)).toHaveCount(1);
});

test("a new message while a reply waits skips its call, live and after a reload", async ({ page }) => {
  await waitingThread(page);
  await sendMessage(page, `never mind ${uniqueToken()}`);
  const first = assistantMessages(page).first().getByRole("group", { name: "Tool: schedule_reminder" });
  await expect(first).toContainText("Skipped: you moved on");
  await expect(assistantMessages(page)).toHaveCount(2);
  await expectReplyFinished(page);
  await page.reload();
  await expect(assistantMessages(page).first().getByRole("group", { name: "Tool: schedule_reminder" })).toContainText("Skipped: you moved on");
});

import { expect, test, type Locator, type Page } from "@playwright/test";
import { SLOW_REPLY, echoReply } from "../../scripts/mock-model-server.mjs";
import {
  assistantMessages,
  composer,
  expectReplyFinished,
  lastReply,
  regenerateWith,
  sendMessage,
  startThread,
  stopButton,
  uniqueToken,
  userMessages,
} from "./helpers";

// A thread's versions in the browser: Regenerate and Edit store new versions
// beside the old ones, "‹ 2 / 2 ›" goes between them, and a reload shows the
// version last chosen. [[nth]] makes each answer to the same words its own.
const previousVersion = (message: Locator) => message.getByRole("button", { name: "Previous version" });
const nextVersion = (message: Locator) => message.getByRole("button", { name: "Next version" });
const editBox = (page: Page) => page.getByRole("textbox", { name: "Edit message" });

/** Presses Tab (or Shift+Tab) until `target` has the focus: the way a keyboard user gets there. */
async function tabTo(page: Page, target: Locator, { backwards = false, max = 60 } = {}): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press(backwards ? "Shift+Tab" : "Tab");
  }
  await expect(target).toBeFocused();
}

test("Regenerate keeps both replies: 2 / 2, Previous version shows the first and 1 / 2, and a reload keeps the choice", async ({ page }) => {
  await page.goto("/");
  const text = `tell me again ${uniqueToken()} [[nth]]`;
  await startThread(page, text);
  await expect(lastReply(page)).toContainText(`${echoReply(text, 1, 0)} (answer 1)`);
  // One reply, no other version yet: nothing to switch between.
  await expect(previousVersion(lastReply(page))).toHaveCount(0);

  await regenerateWith(page);
  await expect(lastReply(page)).toContainText(`${echoReply(text, 1, 0)} (answer 2)`);
  await expectReplyFinished(page);
  await expect(assistantMessages(page)).toHaveCount(1);
  await expect(lastReply(page).getByText("2 / 2", { exact: true })).toBeVisible();
  await expect(nextVersion(lastReply(page))).toBeDisabled();

  await previousVersion(lastReply(page)).click();
  await expect(lastReply(page)).toContainText("(answer 1)");
  await expect(lastReply(page)).not.toContainText("(answer 2)");
  await expect(lastReply(page).getByText("1 / 2", { exact: true })).toBeVisible();
  await expect(previousVersion(lastReply(page))).toBeDisabled();

  await page.reload();
  await expect(lastReply(page)).toContainText("(answer 1)");
  await expect(lastReply(page).getByText("1 / 2", { exact: true })).toBeVisible();
  await nextVersion(lastReply(page)).click();
  await expect(lastReply(page)).toContainText("(answer 2)");
  await expect(lastReply(page).getByText("2 / 2", { exact: true })).toBeVisible();

  // The thread goes on from the version shown.
  const next = `and then ${uniqueToken()}`;
  await sendMessage(page, next);
  await expect(lastReply(page)).toContainText(echoReply(next, 2, 1));
  await expectReplyFinished(page);
  await expect(assistantMessages(page).first().getByText("2 / 2", { exact: true })).toBeVisible();
});

test("a stopped reply can be regenerated, and while a reply streams the versions, Regenerate and Edit wait", async ({ page }) => {
  await page.goto("/");
  await sendMessage(page, `[[slow]] stop me ${uniqueToken()}`);
  await expect(lastReply(page)).toContainText("Streaming slowly");
  await stopButton(page).click();
  await expectReplyFinished(page);
  await expect(lastReply(page).getByText("Stopped", { exact: true })).toBeVisible();

  await regenerateWith(page);
  await expect(lastReply(page)).toContainText("Streaming slowly");
  await expect(stopButton(page)).toBeVisible();
  // The reply being written has no buttons yet; the question's wait for it.
  await expect(lastReply(page).getByRole("button", { name: "Regenerate" })).toHaveCount(0);
  await expect(userMessages(page).first().getByRole("button", { name: "Edit" })).toBeDisabled();

  await expect(lastReply(page)).toContainText(SLOW_REPLY.slice(-40));
  await expectReplyFinished(page);
  await expect(lastReply(page).getByText("2 / 2", { exact: true })).toBeVisible();
  await expect(lastReply(page).getByText("Stopped", { exact: true })).toHaveCount(0);
  await previousVersion(lastReply(page)).click();
  await expect(lastReply(page).getByText("1 / 2", { exact: true })).toBeVisible();
  await expect(lastReply(page).getByText("Stopped", { exact: true })).toBeVisible();
  await expect(lastReply(page)).not.toContainText(SLOW_REPLY.slice(-40));
});

test("Edit sends the new words as a new branch; the old question and its reply stay one version back, also after a reload", async ({ page }) => {
  await page.goto("/");
  const token = uniqueToken();
  const first = `first question ${token}`;
  const second = `second question ${token}`;
  const reworded = `second question reworded ${token}`;
  await startThread(page, first);
  await sendMessage(page, second);
  await expect(lastReply(page)).toContainText(echoReply(second, 2, 1));
  await expectReplyFinished(page);

  const edited = userMessages(page).nth(1);
  await edited.hover();
  await edited.getByRole("button", { name: "Edit" }).click();
  await expect(editBox(page)).toHaveValue(second);
  await expect(editBox(page)).toBeFocused();
  await editBox(page).fill(reworded);
  await edited.getByRole("button", { name: "Send" }).click();

  await expect(lastReply(page)).toContainText(echoReply(reworded, 2, 1));
  await expectReplyFinished(page);
  await expect(editBox(page)).toHaveCount(0);
  await expect(userMessages(page)).toHaveCount(2);
  await expect(userMessages(page).nth(1)).toContainText(reworded);
  await expect(userMessages(page).nth(1).getByText("2 / 2", { exact: true })).toBeVisible();
  await expect(assistantMessages(page)).toHaveCount(2);

  for (const reload of [false, true]) {
    if (reload) await page.reload();
    await expect(userMessages(page).nth(1)).toContainText(reworded);
    await expect(userMessages(page).nth(1).getByText("2 / 2", { exact: true })).toBeVisible();
    await expect(lastReply(page)).toContainText(echoReply(reworded, 2, 1));
  }

  await previousVersion(userMessages(page).nth(1)).click();
  await expect(userMessages(page).nth(1)).toContainText(second);
  await expect(userMessages(page).nth(1).getByText("1 / 2", { exact: true })).toBeVisible();
  await expect(lastReply(page)).toContainText(echoReply(second, 2, 1));
  await expect(userMessages(page).first()).toContainText(first);
});

test("Cancel and Escape leave a message as it was; Shift+Enter is a new line, not a send", async ({ page }) => {
  await page.goto("/");
  const text = `keep me ${uniqueToken()}`;
  await startThread(page, text);
  const message = userMessages(page).first();
  const edit = message.getByRole("button", { name: "Edit" });

  await message.hover();
  await edit.click();
  await editBox(page).press("Shift+Enter");
  await editBox(page).pressSequentially("more");
  await expect(editBox(page)).toHaveValue(`${text}\nmore`);
  await message.getByRole("button", { name: "Cancel" }).click();
  await expect(editBox(page)).toHaveCount(0);
  await expect(message).toContainText(text);

  await edit.click();
  await editBox(page).press("Escape");
  await expect(editBox(page)).toHaveCount(0);
  await expect(edit).toBeFocused();
  await expect(userMessages(page)).toHaveCount(1);
  await expect(assistantMessages(page)).toHaveCount(1);
});

test("by keyboard alone: Tab to Edit, Enter, new words, Enter sends; then Previous and Next version with Enter", async ({ page }) => {
  await page.goto("/");
  const token = uniqueToken();
  const original = `typed question ${token}`;
  const reworded = `typed again ${token}`;
  await startThread(page, original);
  await expect(composer(page)).toBeFocused();

  const message = userMessages(page).first();
  const edit = message.getByRole("button", { name: "Edit" });
  await tabTo(page, edit, { backwards: true });
  // Hidden until hover where there is a mouse, it shows itself once focused.
  await expect(edit).toBeVisible();
  await page.keyboard.press("Enter");
  await expect(editBox(page)).toBeFocused();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type(reworded);
  await page.keyboard.press("Enter");
  await expect(lastReply(page)).toContainText(echoReply(reworded, 1, 0));
  await expectReplyFinished(page);
  await expect(composer(page)).toBeFocused();

  const versioned = userMessages(page).first();
  await expect(versioned.getByText("2 / 2", { exact: true })).toBeVisible();
  await tabTo(page, previousVersion(versioned), { backwards: true });
  await page.keyboard.press("Enter");
  await expect(userMessages(page).first()).toContainText(original);
  await expect(userMessages(page).first().getByText("1 / 2", { exact: true })).toBeVisible();
  // Previous is disabled at the first version: the focus waits on Next, on the message now shown.
  await expect(nextVersion(userMessages(page).first())).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(userMessages(page).first()).toContainText(reworded);
  await expect(userMessages(page).first().getByText("2 / 2", { exact: true })).toBeVisible();
  await expect(previousVersion(userMessages(page).first())).toBeFocused();
  await expect(lastReply(page)).toContainText(echoReply(reworded, 1, 0));
});

test("a regenerate that fails keeps the reply it meant to replace, in view and after a reload", async ({ page }) => {
  await page.goto("/");
  const text = `answer only once ${uniqueToken()} [[once]]`;
  await startThread(page, text);
  await expect(lastReply(page)).toContainText(echoReply(text, 1, 0));
  await expectReplyFinished(page);

  await regenerateWith(page);
  await expect(page.getByRole("alert").filter({ hasText: /problem answering/i })).toBeVisible();
  // The server kept the old reply: the page draws the thread as the server holds it, the error beside it.
  await expect(lastReply(page)).toContainText(echoReply(text, 1, 0));
  await expect(assistantMessages(page)).toHaveCount(1);
  await expect(previousVersion(lastReply(page))).toHaveCount(0);

  await page.reload();
  await expect(lastReply(page)).toContainText(echoReply(text, 1, 0));
  await expect(assistantMessages(page)).toHaveCount(1);
});

import { expect, test } from "@playwright/test";
import { expectNoSeriousViolations } from "./axe";
import { expectReplyFinished, lastReply, regenerateWith, startThread, threadRow, uniqueToken, userMessages } from "./helpers";

// An axe-core audit of what a visitor meets on a thread with versions, in the
// light and the dark colour scheme: the chat page, the sidebar, the open edit
// box, the Export menu and the delete dialog. No violation of impact serious or critical; each is named with the
// elements it was found on, so a failure says where to look.
for (const colorScheme of ["light", "dark"] as const) {
  test(`the chat page with versions, the sidebar, the edit box, the Export menu and the delete dialog have no serious accessibility violation (${colorScheme} scheme)`, async ({ page }) => {
    await page.emulateMedia({ colorScheme });
    await page.goto("/");
    const text = `audit me ${uniqueToken()} [[nth]]`;
    await startThread(page, text);
    await regenerateWith(page);
    await expect(lastReply(page)).toContainText("(answer 2)");
    await expectReplyFinished(page);
    await expect(lastReply(page).getByText("2 / 2", { exact: true })).toBeVisible();
    await expectNoSeriousViolations(page, "chat page with versions and the sidebar");

    const message = userMessages(page).first();
    await message.hover();
    await message.getByRole("button", { name: "Edit" }).click();
    await expect(page.getByRole("textbox", { name: "Edit message" })).toBeFocused();
    await expectNoSeriousViolations(page, "open edit box");
    await page.keyboard.press("Escape");

    const exportButton = page.getByRole("button", { name: "Export" });
    await exportButton.click();
    await expect(page.getByRole("link", { name: "Export as JSON" })).toBeFocused();
    await expectNoSeriousViolations(page, "open Export menu");
    await page.keyboard.press("Escape");
    await expect(page.getByRole("link", { name: "Export as JSON" })).toBeHidden();
    await expect(exportButton).toBeFocused();

    const row = threadRow(page, text);
    await row.hover();
    await row.getByRole("button", { name: "Delete" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await expectNoSeriousViolations(page, "delete dialog");
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  });
}

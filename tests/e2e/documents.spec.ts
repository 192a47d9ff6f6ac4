import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { expectReplyFinished, sendMessage, uniqueToken } from "./helpers";

// A document beside the thread: written by an agent's call, revised by a
// second message, edited by its owner as a version of their own, its
// versions browsed with what changed, and all of it still there after a
// reload.

const call = (name: string, input: unknown) => `[[call:${name}:${JSON.stringify(input)}]]`;
const panel = (page: Page, title: string) => page.getByRole("complementary", { name: `Document: ${title}` });
const event = (page: Page, text: RegExp) => page.getByRole("note").filter({ hasText: text });

async function writePlan(page: Page, title: string): Promise<string> {
  await sendMessage(page, `Plan it ${call("create_document", { title, kind: "markdown", content: `# ${title}\n\n1. Pick a date.\n2. Book a room.` })}`);
  await expectReplyFinished(page);
  const note = event(page, new RegExp(`wrote ${title} \\(v1\\)`));
  await expect(note).toBeVisible();
  return (await note.getAttribute("data-document-event"))!;
}

test("a document written, revised by a second message, edited by you, its versions browsed with their changes, and kept across a reload", async ({ page }) => {
  await page.goto("/");
  const title = `Plan ${uniqueToken()}`;
  const id = await writePlan(page, title);
  await expect(event(page, /Researcher wrote/)).toBeVisible();
  await event(page, /wrote/).getByRole("button", { name: "Open" }).click();
  const open = panel(page, title);
  await expect(open).toBeVisible();
  await expect(open.getByRole("toolbar", { name: "Document versions" })).toContainText("1 / 1");
  await expect(open).toContainText("Book a room.");

  await sendMessage(page, `Add a budget ${call("update_document", { id, edits: [{ find: "2. Book a room.", replace: "2. Book a room.\n3. Set a budget." }] })}`);
  await expectReplyFinished(page);
  await expect(event(page, /revised .* \(v2\)/)).toBeVisible();
  await expect(open.getByRole("toolbar", { name: "Document versions" })).toContainText("2 / 2");
  await expect(open).toContainText("by Researcher");
  await open.getByRole("button", { name: "Changes" }).click();
  await expect(open.locator('[data-diff="added"]')).toHaveText(["+ Added: 3. Set a budget."]);
  await open.getByRole("button", { name: "Changes" }).click();

  await open.getByRole("button", { name: "Edit" }).click();
  const editor = open.getByRole("textbox", { name: `Edit ${title}` });
  await editor.fill(`# ${title}\n\n1. Pick a date.\n2. Book a room.\n3. Set a budget.\n4. Send the invitations.`);
  await open.getByRole("button", { name: "Save as a new version" }).click();
  await expect(open.getByRole("toolbar", { name: "Document versions" })).toContainText("3 / 3");
  await expect(open).toContainText("by you");
  await expect(open).toContainText("Send the invitations.");

  await open.getByRole("button", { name: "Previous version" }).click();
  await expect(open.getByRole("toolbar", { name: "Document versions" })).toContainText("2 / 3");
  await expect(open).toContainText("by Researcher");
  await expect(open).not.toContainText("Send the invitations.");

  await page.reload();
  await event(page, /revised/).getByRole("button", { name: "Open" }).click();
  await expect(panel(page, title).getByRole("toolbar", { name: "Document versions" })).toContainText("3 / 3");
  await expect(panel(page, title)).toContainText("Send the invitations.");
});

test("by keyboard alone: a document opens from its event, the panel takes the focus, has no serious accessibility violation, and Escape closes it", async ({ page }) => {
  await page.goto("/");
  const title = `Notes ${uniqueToken()}`;
  await writePlan(page, title);
  const openButton = event(page, /wrote/).getByRole("button", { name: "Open" });
  // It is disabled until the thread's documents have been read; focus() does not wait for that, as click() does.
  await expect(openButton).toBeEnabled();
  await openButton.focus();
  await page.keyboard.press("Enter");
  const open = panel(page, title);
  await expect(open.getByRole("button", { name: "Close document" })).toBeFocused();
  const { violations } = await new AxeBuilder({ page }).include("aside").analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  await page.keyboard.press("Escape");
  await expect(open).toBeHidden();
});

import { expect, test, type Page } from "@playwright/test";
import { expectReplyFinished, sendMessage, uniqueToken } from "./helpers";

// A long document stays usable: the page reads its older versions only when
// the owner steps back to them, and two versions too long to compare are said
// to be so, at once, instead of holding the tab while a diff runs.

const call = (name: string, input: unknown) => `[[call:${name}:${JSON.stringify(input)}]]`;
const panel = (page: Page, title: string) => page.getByRole("complementary", { name: `Document: ${title}` });
const event = (page: Page, text: RegExp) => page.getByRole("note").filter({ hasText: text });
const isVersionsRead = (url: string) => /\/api\/threads\/[^/]+\/documents\/[^/]+\/versions\?/.test(new URL(url).pathname + new URL(url).search);

/** About 120,000 characters in 3,000 lines: two of them are past what the page compares. */
const longText = (title: string, last: string) =>
  [`# ${title}`, ...Array.from({ length: 3_000 }, (_, i) => `${String(i + 1).padStart(4, "0")}. A step of the long plan, written out.`), last].join("\n");

test("a long document's Changes view says the versions are too large to compare, and the panel goes on answering", async ({ page }) => {
  await page.goto("/");
  const title = `Long plan ${uniqueToken()}`;
  await sendMessage(page, `Plan it ${call("create_document", { title, kind: "markdown", content: `# ${title}\n\n1. Start.` })}`);
  await expectReplyFinished(page);
  const note = event(page, new RegExp(`wrote ${title} \\(v1\\)`));
  await expect(note).toBeVisible();
  const documentId = (await note.getAttribute("data-document-event"))!;
  const threadId = new URL(page.url()).pathname.split("/").at(-1)!;

  // Two long versions by the owner, saved as the panel saves them.
  for (const [basedOn, last] of [[1, "The end."], [2, "The very end."]] as const) {
    const saved = await page.request.put(`/api/threads/${threadId}/documents/${documentId}`, { data: { content: longText(title, last), basedOn } });
    expect(saved.status()).toBe(200);
  }

  await page.reload();
  await event(page, /wrote/).getByRole("button", { name: "Open" }).click();
  const open = panel(page, title);
  const toolbar = open.getByRole("toolbar", { name: "Document versions" });
  await expect(toolbar).toContainText("3 / 3");
  await expect(open).toContainText("The very end.");

  // What changed needs the version before: read now, not with the list.
  const olderRead = page.waitForRequest((request) => isVersionsRead(request.url()));
  await open.getByRole("button", { name: "Changes" }).click();
  await olderRead;
  await expect(open.getByText(/^Too large to compare/)).toBeVisible();
  await expect(open.locator("[data-diff]")).toHaveCount(0);

  // The panel answers at once: back a version, Changes off, and closed by Escape.
  await open.getByRole("button", { name: "Changes" }).click();
  await expect(open).toContainText("The very end.");
  await open.getByRole("button", { name: "Previous version" }).click();
  await expect(toolbar).toContainText("2 / 3");
  await expect(open).toContainText("The end.");
  await expect(open).not.toContainText("The very end.");
  await open.getByRole("button", { name: "Close document" }).focus();
  await page.keyboard.press("Escape");
  await expect(open).toBeHidden();
});

test("a short document's older versions are read on demand and compared as before", async ({ page }) => {
  await page.goto("/");
  const title = `Short plan ${uniqueToken()}`;
  await sendMessage(page, `Plan it ${call("create_document", { title, kind: "markdown", content: `# ${title}\n\n1. Start.` })}`);
  await expectReplyFinished(page);
  const note = event(page, new RegExp(`wrote ${title} \\(v1\\)`));
  const documentId = (await note.getAttribute("data-document-event"))!;
  const threadId = new URL(page.url()).pathname.split("/").at(-1)!;
  for (let basedOn = 1; basedOn <= 3; basedOn++) {
    const content = `# ${title}\n\n1. Start.\n${Array.from({ length: basedOn }, (_, i) => `${i + 2}. Step ${i + 2}.`).join("\n")}`;
    expect((await page.request.put(`/api/threads/${threadId}/documents/${documentId}`, { data: { content, basedOn } })).status()).toBe(200);
  }

  const listed = page.waitForResponse((response) => new URL(response.url()).pathname === `/api/threads/${threadId}/documents`);
  await page.reload();
  // The list carries the latest version alone, and the cursor of the others.
  const [listedDocument] = ((await (await listed).json()) as { documents: Record<string, unknown>[] }).documents;
  expect(listedDocument).toMatchObject({ id: documentId, versionCount: 4, latest: { version: 4 }, olderCursor: expect.any(String) });
  expect(listedDocument).not.toHaveProperty("versions");
  await event(page, /wrote/).getByRole("button", { name: "Open" }).click();
  const open = panel(page, title);
  const toolbar = open.getByRole("toolbar", { name: "Document versions" });
  await expect(toolbar).toContainText("4 / 4");
  await open.getByRole("button", { name: "Changes" }).click();
  await expect(open.locator('[data-diff="added"]')).toHaveText(["+ Added: 4. Step 4."]);
  for (const [shown, added] of [["3 / 4", "+ Added: 3. Step 3."], ["2 / 4", "+ Added: 2. Step 2."]]) {
    await open.getByRole("button", { name: "Previous version" }).click();
    await expect(toolbar).toContainText(shown);
    await expect(open.locator('[data-diff="added"]')).toHaveText([added]);
  }
  await open.getByRole("button", { name: "Previous version" }).click();
  await expect(toolbar).toContainText("1 / 4");
  await expect(open).toContainText("Start.");
  await expect(open).not.toContainText("Step 2.");
  // The first version has nothing before it to compare with.
  await expect(open.getByRole("button", { name: "Changes" })).toBeDisabled();
});

import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import {
  UUID,
  assistantMessages,
  expectReplyFinished,
  lastReply,
  sendMessage,
  startThread,
  threadsNav,
  uniqueToken,
  userMessages,
} from "./helpers";

// A thread copied at a message (Fork), and one carried out as a file and back
// in (Export, Import thread): each opens as a new thread of the sidebar's.
const threadIdOf = (url: string) => new URL(url).pathname.split("/").at(-1) ?? "";

test("Fork at the first reply opens a new thread, listed in the sidebar, that holds the thread up to that reply", async ({ page }) => {
  await page.goto("/");
  const token = uniqueToken();
  const first = `fork here ${token}`;
  const later = `not in the fork ${token}`;
  const original = await startThread(page, first);
  await sendMessage(page, later);
  await expect(lastReply(page)).toContainText(echoReply(later, 2, 1));
  await expectReplyFinished(page);

  await assistantMessages(page).first().getByRole("button", { name: "Fork" }).click();
  await expect(page).not.toHaveURL(`/c/${original}`);
  await expect(page).toHaveURL(/\/c\/[0-9a-f-]{36}$/);
  const forked = threadIdOf(page.url());
  expect(forked).toMatch(UUID);
  await expect(userMessages(page)).toHaveCount(1);
  await expect(userMessages(page)).toContainText([first]);
  await expect(assistantMessages(page)).toContainText([echoReply(first, 1, 0)]);
  await expect(threadsNav(page).locator(`a[href="/c/${forked}"]`)).toBeVisible();
  await expect(threadsNav(page).locator(`a[href="/c/${original}"]`)).toBeVisible();

  // The original is as it was.
  await threadsNav(page).locator(`a[href="/c/${original}"]`).click();
  await expect(userMessages(page)).toHaveCount(2);
});

test("a thread exported as JSON and imported again opens as a new thread with the same messages", async ({ page }) => {
  await page.goto("/");
  const text = `carry me over ${uniqueToken()}`;
  const original = await startThread(page, text);

  await page.getByRole("button", { name: "Export" }).click();
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export as JSON" }).click();
  const download = await downloading;
  const file = await readFile(await download.path());
  expect(() => JSON.parse(file.toString("utf8"))).not.toThrow();

  await page.getByLabel("Import thread").setInputFiles({ name: "thread.json", mimeType: "application/json", buffer: file });
  await expect(page).not.toHaveURL(`/c/${original}`);
  await expect(page).toHaveURL(/\/c\/[0-9a-f-]{36}$/);
  const imported = threadIdOf(page.url());
  await expect(userMessages(page)).toContainText([text]);
  await expect(assistantMessages(page)).toContainText([echoReply(text, 1, 0)]);
  await expect(threadsNav(page).locator(`a[href="/c/${imported}"]`)).toBeVisible();
});

test("the Markdown export downloads the conversation's words", async ({ page }) => {
  await page.goto("/");
  const text = `write me down ${uniqueToken()}`;
  await startThread(page, text);
  await page.getByRole("button", { name: "Export" }).click();
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export as Markdown" }).click();
  const markdown = (await readFile(await (await downloading).path())).toString("utf8");
  expect(markdown).toContain(text);
  expect(markdown).toContain(echoReply(text, 1, 0));
});

test("a file that is not an exported thread is refused with the server's reason, and nothing opens", async ({ page }) => {
  await page.goto("/");
  const text = `stay here ${uniqueToken()}`;
  const threadId = await startThread(page, text);
  await page.getByLabel("Import thread").setInputFiles({ name: "notes.json", mimeType: "application/json", buffer: Buffer.from('{"hello":"world"}') });
  // The words are the server's own: what it answers the same file sent by hand.
  const refusal = await page.request.post("/api/threads/import", { data: { hello: "world" } });
  expect(refusal.status()).toBe(400);
  const { error } = (await refusal.json()) as { error: { message: string } };
  await expect(page.locator('aside [role="alert"]')).toHaveText(error.message);
  await expect(page).toHaveURL(`/c/${threadId}`);
});

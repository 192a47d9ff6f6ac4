import { expect, test } from "@playwright/test";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import {
  assistantMessages,
  notFoundMessage,
  startThread,
  threadLink,
  threadRow,
  threadsNav,
  uniqueToken,
  userMessages,
} from "./helpers";

test("a second chat gets its own thread and the sidebar switches between them", async ({ page }) => {
  await page.goto("/");
  const token = uniqueToken();
  const alpha = `alpha topic ${token}`;
  const beta = `beta topic ${token}`;

  const alphaId = await startThread(page, alpha);
  await page.getByRole("button", { name: "New chat" }).click();
  await expect(userMessages(page)).toHaveCount(0);
  const betaId = await startThread(page, beta);
  expect(betaId).not.toBe(alphaId);

  await expect(threadLink(page, alpha)).toBeVisible();
  await expect(threadLink(page, beta)).toBeVisible();

  for (const [title, id] of [
    [alpha, alphaId],
    [beta, betaId],
  ]) {
    await threadLink(page, title).click();
    await expect(page).toHaveURL(`/c/${id}`);
    await expect(userMessages(page)).toHaveCount(1);
    await expect(userMessages(page)).toContainText([title]);
    await expect(assistantMessages(page)).toContainText([echoReply(title, 1, 0)]);
  }
});

test("renaming a thread changes its sidebar title for good", async ({ page }) => {
  await page.goto("/");
  const token = uniqueToken();
  const original = `draft idea ${token}`;
  const renamed = `Project notes ${token}`;
  await startThread(page, original);

  const row = threadRow(page, original);
  await row.hover();
  await row.getByRole("button", { name: "Rename" }).click();
  const titleBox = threadsNav(page).getByRole("textbox", { name: "Thread title" });
  await titleBox.fill(renamed);
  await titleBox.press("Enter");

  await expect(threadLink(page, renamed)).toBeVisible();
  await expect(threadLink(page, original)).toHaveCount(0);

  await page.reload();
  await expect(threadLink(page, renamed)).toBeVisible();
  await expect(threadLink(page, original)).toHaveCount(0);
});

test("deleting a thread asks first, and once confirmed the thread is gone", async ({ page }) => {
  await page.goto("/");
  const token = uniqueToken();
  const keep = `keep this ${token}`;
  const doomed = `delete this ${token}`;
  // A second thread that stays proves the sidebar has loaded when we check for absence.
  await startThread(page, keep);
  await page.getByRole("button", { name: "New chat" }).click();
  const doomedId = await startThread(page, doomed);

  const row = threadRow(page, doomed);
  const dialog = page.getByRole("dialog");
  await row.hover();
  await row.getByRole("button", { name: "Delete" }).click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(threadLink(page, doomed)).toBeVisible();

  await row.hover();
  await row.getByRole("button", { name: "Delete" }).click();
  await dialog.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(threadLink(page, doomed)).toHaveCount(0);

  await page.reload();
  await expect(threadLink(page, keep)).toBeVisible();
  await expect(threadLink(page, doomed)).toHaveCount(0);

  await page.goto(`/c/${doomedId}`);
  await expect(notFoundMessage(page)).toBeVisible();
  await expect(userMessages(page)).toHaveCount(0);
});

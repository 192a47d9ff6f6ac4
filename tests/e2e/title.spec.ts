import { expect, test } from "@playwright/test";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { MOCK_MODEL_URL } from "../../scripts/e2e-env.mjs";
import { expectReplyFinished, lastReply, sendMessage, threadLink, uniqueToken } from "./helpers";

// The model's title reaches the sidebar from the turn's stream: the mock holds
// its title until the thread is listed by its first words, and from then on
// the page may not read the thread list again, so the new name can only come
// from the data part, and the page is never reloaded.
test("the model's title replaces the first words in the sidebar without a reload", async ({ page, request }) => {
  await page.goto("/");
  const token = uniqueToken();
  const modelTitle = `Weekend in Porto ${token}`;
  const text = `plans for a trip ${token} [[title-held]] [[title:${modelTitle}]]`;
  await page.evaluate(() => Object.assign(window, { notReloaded: true }));

  await sendMessage(page, text);
  await expect(lastReply(page)).toContainText(echoReply(text, 1, 0));
  const firstWords = threadLink(page, `plans for a trip ${token}`);
  await expect(firstWords).toBeVisible();

  await page.route("**/api/threads**", (route) => (route.request().method() === "GET" ? route.abort() : route.fallback()));
  expect((await request.post(`${MOCK_MODEL_URL}/__titles/release`)).ok()).toBe(true);

  await expect(threadLink(page, modelTitle)).toBeVisible();
  await expect(firstWords).toHaveCount(0);
  await expectReplyFinished(page);
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);

  // Stored: a reload lists it by the model's title.
  await page.unroute("**/api/threads**");
  await page.reload();
  await expect(threadLink(page, modelTitle)).toBeVisible();
});

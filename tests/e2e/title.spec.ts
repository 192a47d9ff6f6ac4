import { expect, test, type Page } from "@playwright/test";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { MOCK_MODEL_URL } from "../../scripts/e2e-env.mjs";
import { composer, expectReplyFinished, lastReply, sendMessage, threadLink, uniqueToken } from "./helpers";

const markNotReloaded = (page: Page) => page.evaluate(() => Object.assign(window, { notReloaded: true }));
const notReloaded = (page: Page) => page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded);

// The model's title comes after the reply's finish: the mock holds it while
// the test checks that the composer is free and the sidebar still lists the
// thread by its first words, in the tab that sent the message and in a second
// one. Released, it reaches both sidebars as news, with no reload.
test("the composer is free before the model's title, which reaches this tab's sidebar and another's without a reload", async ({ page, context, request }) => {
  const other = await context.newPage();
  await Promise.all([page.goto("/"), other.goto("/")]);
  await Promise.all([markNotReloaded(page), markNotReloaded(other)]);
  const token = uniqueToken();
  const modelTitle = `Weekend in Porto ${token}`;
  const text = `plans for a trip ${token} [[title-held]] [[title:${modelTitle}]]`;

  await sendMessage(page, text);
  await expect(lastReply(page)).toContainText(echoReply(text, 1, 0));
  // The title is still held by the model: the reply has finished all the same.
  await expectReplyFinished(page);
  await expect(composer(page)).toBeEnabled();
  for (const tab of [page, other]) {
    await expect(threadLink(tab, `plans for a trip ${token}`)).toBeVisible();
    await expect(threadLink(tab, modelTitle)).toHaveCount(0);
  }

  // Only this test's title: the same test may be waiting for its own in the other project, side by side.
  expect((await request.post(`${MOCK_MODEL_URL}/__titles/release?token=${token}`)).ok()).toBe(true);
  for (const tab of [page, other]) {
    await expect(threadLink(tab, modelTitle)).toBeVisible();
    await expect(threadLink(tab, `plans for a trip ${token}`)).toHaveCount(0);
    expect(await notReloaded(tab)).toBe(true);
  }

  // Stored: a reload lists it by the model's title.
  await page.reload();
  await expect(threadLink(page, modelTitle)).toBeVisible();
});

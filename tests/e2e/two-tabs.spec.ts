import { expect, test, type Page } from "@playwright/test";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { assistantMessages, expectReplyFinished, isChatPost, lastReply, normalize, sendMessage, startThread, stopButton, uniqueToken, userMessages } from "./helpers";

// One thread open in two tabs of one identity (or on two devices: the server
// cannot tell them apart): what is sent in one shows in the other as it is
// written, with no reload, and either tab's Stop ends the reply in both.

const FULL_SLOW_REPLY = normalize(SLOW_REPLY);

/** The last reply's text parts only. */
async function replyText(page: Page): Promise<string> {
  return normalize((await lastReply(page).locator(".markdown").allTextContents()).join(""));
}

/** A thread with one exchange, open in `page` (which wrote it) and in a second tab; the second tab sends nothing. */
async function threadInTwoTabs(page: Page) {
  await page.goto("/");
  const threadId = await startThread(page, `two tabs ${uniqueToken()}`);
  const other = await page.context().newPage();
  const otherPosts: string[] = [];
  other.on("request", (request) => {
    if (isChatPost(request)) otherPosts.push(request.url());
  });
  await other.goto(`/c/${threadId}`);
  await expect(assistantMessages(other)).toHaveCount(1);
  return { threadId, other, otherPosts };
}

test("a message sent in one tab shows in the other with its reply as it streams, shown once, and the other tab sent nothing", async ({ page }) => {
  const { other, otherPosts } = await threadInTwoTabs(page);
  const message = `[[slow]] watch me from the other tab ${uniqueToken()}`;
  await sendMessage(page, message);

  await expect(userMessages(other).last()).toHaveText(message);
  // The reply joins the other tab once its stream is open: until then the last reply there is the thread's first.
  await expect(assistantMessages(other)).toHaveCount(2);
  // Part of the reply, while it is still being written in both tabs.
  await expect.poll(async () => (await replyText(other)).split(" ").length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
  const partial = await replyText(other);
  expect(partial.length).toBeLessThan(FULL_SLOW_REPLY.length);
  expect(FULL_SLOW_REPLY.startsWith(partial)).toBe(true);
  await expect(stopButton(other)).toBeVisible();

  await expect.poll(() => replyText(other), { timeout: 30_000 }).toBe(FULL_SLOW_REPLY);
  await expectReplyFinished(other);
  await expectReplyFinished(page);
  await expect(assistantMessages(other)).toHaveCount(2);
  await expect(userMessages(other)).toHaveCount(2);
  expect(normalize(await lastReply(other).textContent()).split(FULL_SLOW_REPLY)).toHaveLength(2);
  expect(otherPosts).toEqual([]);
});

test("Stop in the tab that did not send the message ends the reply in both, keeping the same words", async ({ page }) => {
  const { other } = await threadInTwoTabs(page);
  await sendMessage(page, `[[slow]] stop me from the other tab ${uniqueToken()}`);
  await expect(lastReply(other)).toContainText("Streaming slowly");
  await expect(assistantMessages(other)).toHaveCount(2);

  await stopButton(other).click();
  await expectReplyFinished(other);
  await expectReplyFinished(page);
  const kept = await replyText(other);
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.length).toBeLessThan(FULL_SLOW_REPLY.length);
  // The writer's tab ends where the server stopped it; it may have shown a chunk the other tab had not yet.
  await expect.poll(() => replyText(page)).toBe(kept);

  // The thread holds what both tabs show.
  await other.reload();
  await expect(assistantMessages(other)).toHaveCount(2);
  expect(await replyText(other)).toBe(kept);
});

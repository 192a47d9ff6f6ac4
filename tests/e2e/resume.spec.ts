import { expect, test, type Page } from "@playwright/test";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { assistantMessages, expectReplyFinished, isChatPost, lastReply, normalize, sendMessage, stopButton, uniqueToken, userMessages } from "./helpers";

// A reload while a reply is being written resumes that reply where it is
// (GET /api/threads/:id/stream): what was written shows at once, the rest
// follows, and the message is not sent again.

const FULL_SLOW_REPLY = normalize(SLOW_REPLY);

/** The reply's text parts only: the agent's name and the controls around them are not the reply. */
async function replyText(page: Page): Promise<string> {
  return normalize((await lastReply(page).locator(".markdown").allTextContents()).join(""));
}

/** A slow reply under way in a new thread, a few words of it shown: its thread, and the words shown. */
async function slowReplyUnderWay(page: Page, message: string) {
  await page.goto("/");
  const response = await sendMessage(page, message);
  const threadId = response.headers()["x-thread-id"];
  await expect.poll(async () => (await replyText(page)).split(" ").length, { timeout: 15_000 }).toBeGreaterThanOrEqual(6);
  return { threadId, shown: await replyText(page) };
}

/** Reloads the thread's page; resolves with the resume's response. Any POST /api/chat after it lands in `resent`. */
async function reloadThread(page: Page, threadId: string, resent: string[]) {
  page.on("request", (request) => {
    if (isChatPost(request)) resent.push(request.url());
  });
  const resumed = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/threads/${threadId}/stream`);
  await page.goto(`/c/${threadId}`);
  return resumed;
}

test("a reload mid-reply shows the message and the reply so far at once, then the rest, the reply once", async ({ page }) => {
  // 400 ms a word (24 s in all): at [[slow]]'s pace, the reply once ended while the reloaded page was still loading on a busy machine.
  const message = `[[slow:400]] follow me after a reload ${uniqueToken()}`;
  test.slow();
  const { threadId, shown } = await slowReplyUnderWay(page, message);
  const resent: string[] = [];
  const resumed = await reloadThread(page, threadId, resent);
  expect(resumed.status()).toBe(200);

  await expect(userMessages(page)).toHaveText([message]);
  // What was shown before the reload is back, while the reply is still being written.
  await expect.poll(async () => (await replyText(page)).startsWith(shown)).toBe(true);
  const partial = await replyText(page);
  expect(partial.length).toBeLessThan(FULL_SLOW_REPLY.length);
  await expect(stopButton(page)).toBeVisible();

  await expect.poll(() => replyText(page), { timeout: 45_000 }).toBe(FULL_SLOW_REPLY);
  await expectReplyFinished(page);
  await expect(assistantMessages(page)).toHaveCount(1);
  expect(normalize(await lastReply(page).textContent()).split(FULL_SLOW_REPLY)).toHaveLength(2);
  expect(resent).toEqual([]);

  // The thread holds it as shown.
  await page.reload();
  await expect(userMessages(page)).toHaveText([message]);
  await expect(assistantMessages(page)).toHaveCount(1);
  expect(await replyText(page)).toBe(FULL_SLOW_REPLY);
});

test("Stop during a resumed reply ends it on the server, keeping what was written", async ({ page }) => {
  // As above: at [[slow]]'s pace the reply had once ended (the resume answered 204) before the reload asked for it.
  test.slow();
  const { threadId } = await slowReplyUnderWay(page, `[[slow:400]] resume, then stop ${uniqueToken()}`);
  const resent: string[] = [];
  expect((await reloadThread(page, threadId, resent)).status()).toBe(200);
  await expect(lastReply(page)).toContainText("Streaming slowly");
  await stopButton(page).click();
  await expectReplyFinished(page);
  const kept = await replyText(page);
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.length).toBeLessThan(FULL_SLOW_REPLY.length);
  expect(FULL_SLOW_REPLY.startsWith(kept)).toBe(true);
  expect(resent).toEqual([]);

  await expect(async () => {
    await page.goto(`/c/${threadId}`);
    await expect(assistantMessages(page)).toHaveCount(1, { timeout: 2_000 });
    expect(await replyText(page)).toBe(kept);
  }).toPass({ timeout: 20_000 });
});

test("a reply that ended before the page asked for it is drawn from the thread", async ({ page }) => {
  const message = `[[slow]] ended meanwhile ${uniqueToken()}`;
  const { threadId } = await slowReplyUnderWay(page, message);
  // The page is rendered while the reply runs; its resume is held until the reply has ended.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/api/threads/${threadId}/stream`, async (route) => {
    await held;
    await route.continue();
  });
  const resent: string[] = [];
  const resumed = reloadThread(page, threadId, resent);
  await expect(userMessages(page)).toHaveText([message]);
  // The reply ends on the server meanwhile (the thread stores it).
  await expect
    .poll(async () => (await page.request.get(`/api/threads/${threadId}/history`)).json().then((b) => b.messages.length), { timeout: 30_000 })
    .toBe(2);
  release();
  expect((await resumed).status()).toBe(204);
  await expect.poll(() => replyText(page)).toBe(FULL_SLOW_REPLY);
  await expectReplyFinished(page);
  await expect(assistantMessages(page)).toHaveCount(1);
  expect(resent).toEqual([]);
});

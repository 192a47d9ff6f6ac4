import { expect, test, type Page } from "@playwright/test";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import {
  UUID,
  assistantMessages,
  expectReplyFinished,
  lastReply,
  normalize,
  sendButton,
  sendMessage,
  stopButton,
  uniqueToken,
  userMessages,
} from "./helpers";

const FULL_SLOW_REPLY = normalize(SLOW_REPLY);
// The slow reply's opening words: seeing them means real reply text has arrived,
// not a placeholder such as "Thinking…".
const SLOW_REPLY_START = FULL_SLOW_REPLY.split(" ").slice(0, 2).join(" ");

/** The reply's text parts only: the agent's name and the controls around them are not the reply. */
async function replyText(page: Page): Promise<string> {
  return (await lastReply(page).locator(".markdown").allTextContents()).join("");
}

/**
 * The part of the slow reply that a message shows: its longest common start
 * with the full reply. Labels the UI adds after the text (e.g. "Stopped") do
 * not count, so the live and the reloaded message compare on the reply alone.
 */
function slowReplyShownIn(text: string | null): string {
  const shown = normalize(text);
  let length = 0;
  while (length < shown.length && shown[length] === FULL_SLOW_REPLY[length]) length += 1;
  return shown.slice(0, length).trim();
}

test("a reply streams in word by word and the new chat gets its own URL", async ({ page }) => {
  await page.goto("/");
  const message = `[[slow]] stream please ${uniqueToken()}`;
  const response = await sendMessage(page, message);
  expect(response.headers()["x-history-source"]).toBe("new");
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);
  await expect(userMessages(page)).toContainText([message]);

  // Every distinct length of partial reply text seen before the whole reply is there.
  const partialLengths = new Set<number>();
  await expect
    .poll(
      async () => {
        const shown = normalize((await assistantMessages(page).allTextContents()).at(-1));
        if (shown.includes(SLOW_REPLY_START) && !shown.includes(FULL_SLOW_REPLY)) partialLengths.add(shown.length);
        return shown;
      },
      { timeout: 30_000, intervals: [50] },
    )
    .toContain(FULL_SLOW_REPLY);
  expect(partialLengths.size, "partial reply lengths seen while streaming").toBeGreaterThanOrEqual(2);

  await expect(page).toHaveURL(`/c/${threadId}`);
  await expectReplyFinished(page);
});

test("Stop keeps the words that arrived, and a reload shows the same partial reply", async ({ page }) => {
  await page.goto("/");
  const response = await sendMessage(page, `[[slow]] stop me ${uniqueToken()}`);
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);

  await expect(lastReply(page)).toContainText(SLOW_REPLY_START);
  await stopButton(page).click();
  await expect(sendButton(page)).toBeVisible();
  await expect(stopButton(page)).toBeHidden();

  const kept = slowReplyShownIn(await replyText(page));
  expect(kept).toContain(SLOW_REPLY_START);
  expect(kept.length).toBeLessThan(FULL_SLOW_REPLY.length);

  // The server may finish writing the stopped turn a moment after the click,
  // so reload until it is there rather than guessing a delay.
  await expect(async () => {
    await page.goto(`/c/${threadId}`);
    await expect(assistantMessages(page)).toHaveCount(1, { timeout: 2_000 });
    expect(slowReplyShownIn(await replyText(page))).toBe(kept);
  }).toPass({ timeout: 20_000 });
});

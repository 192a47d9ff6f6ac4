import { expect, test } from "@playwright/test";
import { WAITING_NOTICE } from "../../lib/protocol/chat";
import { assistantMessages, expectReplyFinished, lastReply, sendMessage, startThread, uniqueToken, userMessages } from "./helpers";

// A message sent to a thread while another tab's reply is being written waits
// for that reply under Inngest (one run per thread at a time). The second tab
// (another window of the same identity, as on a second device) hears no news
// here, so it does not know the thread is busy and sends; its request is
// answered at once, and the page says the message waits instead of showing a
// bare spinner, then streams the message's own reply.
test("a message that waits for the previous reply says so, then gets its own reply", async ({ page, browser }, testInfo) => {
  test.skip(
    testInfo.project.name !== "inngest",
    "inline, a second message while a reply runs is refused (409); only the same message sent again waits there (integration tests)",
  );
  await page.goto("/");
  const threadId = await startThread(page, `queued ${uniqueToken()}`);
  const device = await browser.newContext({ storageState: await page.context().storageState() });
  const other = await device.newPage();
  await other.route("**/api/threads/events", (route) => route.abort());
  await other.goto(`/c/${threadId}`);
  await expect(assistantMessages(other)).toHaveCount(1);

  await sendMessage(page, `[[slow]] the first question ${uniqueToken()}`);
  await expect(lastReply(page)).toContainText("Streaming slowly");
  const second = `the second question ${uniqueToken()}`;
  await sendMessage(other, second);
  await expect(other.getByText(WAITING_NOTICE)).toBeVisible();

  await expectReplyFinished(page);
  await expect(other.getByText(WAITING_NOTICE)).toHaveCount(0, { timeout: 30_000 });
  await expectReplyFinished(other);
  await expect(userMessages(other).last()).toHaveText(second);
  await expect(lastReply(other)).toContainText(second);
  await device.close();
});

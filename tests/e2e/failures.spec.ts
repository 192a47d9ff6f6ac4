import { expect, test } from "@playwright/test";
import { SLOW_REPLY, echoReply } from "../../scripts/mock-model-server.mjs";
import {
  UUID,
  assistantMessages,
  expectReplyFinished,
  isChatPost,
  lastReply,
  sendMessage,
  stopButton,
  threadAlert,
  uniqueToken,
  userMessages,
} from "./helpers";

test("a model failure shows an error in the thread and keeps the user's message", async ({ page }) => {
  await page.goto("/");
  const message = `[[error]] please fail ${uniqueToken()}`;
  const response = await sendMessage(page, message);
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);

  // The provider retries a 500 with backoff before giving up, hence the longer wait.
  await expect(threadAlert(page).first()).toBeVisible({ timeout: 30_000 });
  await expectReplyFinished(page);

  // Retry asks again for the same message: the server answers it anew, and it is never stored twice.
  const retried = page.waitForResponse((r) => isChatPost(r.request()));
  await threadAlert(page).first().getByRole("button", { name: "Retry" }).click();
  expect((await retried).request().postDataJSON().message.id).toBe(response.request().postDataJSON().message.id);
  await expect(threadAlert(page).first()).toBeVisible({ timeout: 30_000 });
  await expectReplyFinished(page);

  await page.goto(`/c/${threadId}`);
  await expect(userMessages(page)).toHaveText([message]);
});

test("a reload while a reply is being written follows it to the end, with Stop meanwhile", async ({ page }) => {
  await page.goto("/");
  const message = `[[slow]] keep going ${uniqueToken()}`;
  const response = await sendMessage(page, message);
  const threadId = response.headers()["x-thread-id"];
  await expect(lastReply(page)).toContainText("Streaming slowly");
  await page.goto(`/c/${threadId}`);
  await expect(stopButton(page)).toBeVisible();
  await expect(lastReply(page)).toContainText(SLOW_REPLY, { timeout: 30_000 });
  await expectReplyFinished(page);
  await page.reload();
  await expect(userMessages(page)).toHaveText([message]);
  await expect(assistantMessages(page)).toHaveCount(1);
});

test("a step the durable run retries shows its reply once, and the next message sends that reply back as shown", async ({ page }, testInfo) => {
  test.skip(testInfo.project.name !== "inngest", "only a durable run retries a step");
  await page.goto("/");
  // The mock breaks the first answer to this text off after a few words; the run retries the step.
  const message = `[[flaky-mid]] try once more ${uniqueToken()}`;
  await sendMessage(page, message);
  const reply = echoReply(message, 1, 0);
  await expect(lastReply(page)).toContainText(reply, { timeout: 30_000 });
  await expectReplyFinished(page);
  // The broken-off try wrote the first four words of the mock's FAIL_MID_REPLY.
  await expect(lastReply(page)).not.toContainText("This reply will break");

  // The page's copy holds the reply without the broken-off try: the server takes it as signed.
  const followUp = await sendMessage(page, `and once again ${uniqueToken()}`);
  expect(followUp.headers()["x-history-source"]).toBe("client");
  const sent = followUp.request().postDataJSON().history as { role: string; parts: { type: string; text?: string }[] }[];
  const sentReply = sent.findLast((m) => m.role === "assistant");
  expect(sentReply?.parts.filter((p) => p.type === "text").map((p) => p.text).join("")).toBe(reply);
  await expectReplyFinished(page);
});

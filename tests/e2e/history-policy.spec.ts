import { expect, test } from "@playwright/test";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { OPERATOR_APP_URL } from "../../scripts/e2e-env.mjs";
import { expectReplyFinished, lastReply, sendMessage, threadAlert, uniqueToken } from "./helpers";

// The chat page's ?historyPolicy=&historyLength= reach the model, and
// ?debug=true shows the setting in force before anything is sent, then what
// the model was given and which setting decided it.

const panel = (page: import("@playwright/test").Page) => page.getByRole("region", { name: "History debug" });

test("?historyPolicy=lastN&historyLength=1&debug=true: the model reads only the new message, and the panel says why", async ({ page }) => {
  await page.goto("/?historyPolicy=lastN&historyLength=1&debug=true");
  // Before anything is sent: the setting the first message will be given.
  await expect(panel(page)).toContainText("History for the next message");
  await expect(panel(page)).toContainText("Policy: lastN");
  await expect(panel(page)).toContainText("Length: 1");
  await expect(panel(page)).toContainText("Source: URL");
  await expect(panel(page)).toContainText("Messages in thread: 0");
  const first = `first ${uniqueToken()}`;
  await sendMessage(page, first);
  await expectReplyFinished(page);
  await expect(panel(page)).toContainText("Policy: lastN");
  await expect(panel(page)).toContainText("Length: 1");
  await expect(panel(page)).toContainText("Source: URL");
  // The thread's own URL keeps the setting.
  await expect(page).toHaveURL(/\/c\/[0-9a-f-]+\?historyPolicy=lastN&historyLength=1&debug=true$/);

  const second = `second ${uniqueToken()}`;
  const response = await sendMessage(page, second);
  // The page sends only the window the server reads: here, nothing before the new message.
  expect(response.request().postDataJSON().history).toEqual([]);
  // With one user message in its window, the model sees no earlier turn.
  await expect(lastReply(page)).toContainText(echoReply(second, 1, 0));
  await expect(panel(page)).toContainText("Messages in thread: 3");
  await expect(panel(page)).toContainText("Sent to the model: 1 message,");
  await expect(panel(page)).toContainText("History from: client");

  // Opened again, the thread's page shows the setting and the thread's size before anything is sent.
  await page.reload();
  await expect(panel(page)).toContainText("History for the next message");
  await expect(panel(page)).toContainText("Policy: lastN");
  await expect(panel(page)).toContainText("Source: URL");
  await expect(panel(page)).toContainText("Messages in thread: 4");
});

test("without a setting the whole thread reaches the model, and a bad length is refused with a clear message", async ({ page }) => {
  await page.goto("/?debug=true");
  await expect(panel(page)).toContainText("Policy: all");
  await expect(panel(page)).toContainText("Source: default");
  await sendMessage(page, `one ${uniqueToken()}`);
  await expectReplyFinished(page);
  await expect(panel(page)).toContainText("Source: default");
  const two = `two ${uniqueToken()}`;
  const response = await sendMessage(page, two);
  expect(response.request().postDataJSON().history).toHaveLength(2);
  await expect(lastReply(page)).toContainText(echoReply(two, 2, 1));

  // The panel says so before the message is sent.
  await page.goto("/?historyPolicy=lastN&historyLength=-1&debug=true");
  await expect(panel(page)).toContainText("the next message will be refused (historyLength:");
  await sendMessage(page, `refused ${uniqueToken()}`);
  await expect(threadAlert(page)).toContainText("historyLength");
});

test.describe("an operator's setting", () => {
  test.use({ baseURL: OPERATOR_APP_URL });

  test("wins over the page's URL, and the panel says it came from the environment", async ({ page }, testInfo) => {
    test.skip(testInfo.project.name !== "inline", "one operator app serves both projects");
    await page.goto("/?historyPolicy=all&debug=true");
    // Before anything is sent, the operator sees that the environment wins over the URL.
    await expect(panel(page)).toContainText("Policy: lastN");
    await expect(panel(page)).toContainText("Length: 1");
    await expect(panel(page)).toContainText("Source: environment");
    await sendMessage(page, `earlier ${uniqueToken()}`);
    await expectReplyFinished(page);
    const next = `later ${uniqueToken()}`;
    await sendMessage(page, next);
    await expect(lastReply(page)).toContainText(echoReply(next, 1, 0));
    await expect(panel(page)).toContainText("Policy: lastN");
    await expect(panel(page)).toContainText("Length: 1");
    await expect(panel(page)).toContainText("Source: environment");
  });
});

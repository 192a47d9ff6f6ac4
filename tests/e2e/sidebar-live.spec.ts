import { expect, test, type Page } from "@playwright/test";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import type { ThreadPage } from "../../lib/protocol/threads";
import { composer, expectReplyFinished, lastReply, sendMessage, threadLink, threadsNav, uniqueToken, UUID } from "./helpers";

// The sidebar follows the visitor's threads live, from any tab: a reply being
// written is marked "Generating" in its thread's link, a reply that ended
// where nobody looked is marked "New reply" until the thread is opened, and a
// thread that gets a message moves to the top.

const generating = (page: Page, token: string) => threadLink(page, token).getByRole("img", { name: "Generating" });
const newReply = (page: Page, token: string) => threadLink(page, token).getByRole("img", { name: "New reply" });

/** Sends the first message of a new chat and waits for the page to name its thread. */
async function startSlowThread(page: Page, text: string): Promise<string> {
  const response = await sendMessage(page, text);
  const threadId = response.headers()["x-thread-id"];
  expect(threadId).toMatch(UUID);
  await expect(page).toHaveURL(`/c/${threadId}`);
  return threadId;
}

/** The visitor's threads as the server lists them. */
async function listed(page: Page) {
  return ((await (await page.request.get("/api/threads")).json()) as ThreadPage).threads;
}

test("another tab's sidebar marks the thread Generating while its slow reply is written, and not once it ended; the writer's tab saw it, so it is not new", async ({
  page,
  context,
}) => {
  const token = uniqueToken();
  const watcher = await context.newPage();
  await watcher.goto("/");
  await expect(threadsNav(watcher)).toBeVisible();

  await page.goto("/");
  const threadId = await startSlowThread(page, `${token} [[slow]] take your time`);
  await expect(generating(page, token)).toBeVisible();
  // The other tab sends nothing: only the server's news can tell it.
  await expect(generating(watcher, token)).toBeVisible();

  await expectReplyFinished(page);
  await expect(generating(page, token)).toHaveCount(0);
  await expect(generating(watcher, token)).toHaveCount(0);
  await expect(threadLink(watcher, token)).toBeVisible();
  // The reply ended in front of its writer: the server counts it as read, and no tab flags it.
  await expect.poll(async () => (await listed(page)).find((t) => t.id === threadId)?.unseen).toBe(false);
  await expect(newReply(watcher, token)).toHaveCount(0);
  await expect(newReply(page, token)).toHaveCount(0);
});

test("a reply that ends in a thread that is not open is marked New reply until the thread is opened", async ({ page }) => {
  const token = uniqueToken();
  await page.goto("/");
  const threadId = await startSlowThread(page, `${token} [[slow]] answer while I am away`);
  await expect(generating(page, token)).toBeVisible();

  // Away from the thread while its reply is still being written.
  await page.getByRole("button", { name: "New chat" }).click();
  await expect(page).toHaveURL("/");
  await expect(generating(page, token)).toBeVisible();
  await expect(newReply(page, token)).toBeVisible({ timeout: 30_000 });
  await expect(generating(page, token)).toHaveCount(0);
  // Still new after a reload: the server holds it.
  await page.reload();
  await expect(newReply(page, token)).toBeVisible();

  await threadLink(page, token).click();
  await expect(page).toHaveURL(`/c/${threadId}`);
  await expect(lastReply(page)).toContainText("Streaming slowly on purpose");
  await expect(newReply(page, token)).toHaveCount(0);
  await expect.poll(async () => (await listed(page)).find((t) => t.id === threadId)?.unseen).toBe(false);

  await page.getByRole("button", { name: "New chat" }).click();
  await expect(page).toHaveURL("/");
  await page.reload();
  await expect(threadLink(page, token)).toBeVisible();
  await expect(newReply(page, token)).toHaveCount(0);
});

test("a thread that gets a message in another tab moves to the top of this tab's sidebar", async ({ page, context }) => {
  const older = `older ${uniqueToken()}`;
  const newer = `newer ${uniqueToken()}`;
  await page.goto("/");
  await sendMessage(page, older);
  await expect(lastReply(page)).toContainText(echoReply(older, 1, 0));
  await expectReplyFinished(page);
  const olderUrl = page.url();
  await page.getByRole("button", { name: "New chat" }).click();
  await sendMessage(page, newer);
  await expect(lastReply(page)).toContainText(echoReply(newer, 1, 0));
  await expectReplyFinished(page);
  const links = threadsNav(page).getByRole("link");
  await expect(links.first()).toContainText(newer);

  const other = await context.newPage();
  await other.goto(olderUrl);
  await expect(composer(other)).toBeVisible();
  await sendMessage(other, `once more ${older}`);
  await expectReplyFinished(other);

  await expect(links.first()).toContainText(older);
  await expect(links.nth(1)).toContainText(newer);
});

test("eight tabs of one visitor all load and follow the news over one stream, which passes to another tab when its tab closes", async ({ page, context }) => {
  // Over HTTP/1.1 a browser opens six connections to a server across all its
  // tabs: a news stream per tab would leave the seventh unable to load.
  const streamsOpenedBy = new Map<Page, number>();
  const tabs = [page, ...(await Promise.all(Array.from({ length: 7 }, () => context.newPage())))];
  for (const tab of tabs) {
    streamsOpenedBy.set(tab, 0);
    tab.on("request", (request) => {
      if (new URL(request.url()).pathname === "/api/threads/events") streamsOpenedBy.set(tab, streamsOpenedBy.get(tab)! + 1);
    });
  }
  for (const tab of tabs) {
    await tab.goto("/");
    await expect(threadsNav(tab)).toBeVisible();
  }
  const streaming = () => tabs.filter((tab) => !tab.isClosed() && streamsOpenedBy.get(tab)! > 0);
  await expect.poll(() => streaming().length).toBe(1);
  const leader = streaming()[0];

  const first = uniqueToken();
  const writer = tabs.at(-1)!;
  await sendMessage(writer, `${first} said in the last tab`);
  await expectReplyFinished(writer);
  for (const tab of tabs) await expect(threadLink(tab, first)).toBeVisible();

  // The tab holding the stream goes; another opens it and the rest keep following.
  await leader.close();
  const left = tabs.filter((tab) => tab !== leader);
  await expect.poll(() => streaming().length).toBe(1);
  const second = uniqueToken();
  await writer.getByRole("button", { name: "New chat" }).click();
  await sendMessage(writer, `${second} said after the first stream's tab closed`);
  await expectReplyFinished(writer);
  for (const tab of left) await expect(threadLink(tab, second)).toBeVisible();
});

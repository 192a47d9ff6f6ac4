import { expect, test, type Page, type Request } from "@playwright/test";
import { assistantMessages, expectReplyFinished, lastReply, sendMessage, startThread, stopButton, uniqueToken } from "./helpers";

// Over HTTP/1.1 a browser opens six connections to a server across all its
// tabs. Seven tabs following one running reply, each over a stream of its own,
// beside the tab that sent it and the news, would leave the last ones unable
// to load; over one stream shared by the tabs, every tab loads and follows.
test("eight tabs showing one running reply all load and follow it over one resumed stream, and Stop in one ends it in all", async ({ page, context }) => {
  // Eight pages loaded and hydrated one after another, with the other
  // project's eight beside them on two cores: each took 2 to 10 s, and the
  // whole ran past one minute, here and at a commit CI had passed it on.
  test.slow();
  await page.goto("/");
  const threadId = await startThread(page, `many tabs ${uniqueToken()}`);
  // The resumed streams of the thread open at once (a tab that asks again replaces its own first one).
  let open = 0;
  let mostAtOnce = 0;
  const isResume = (request: Request) => new URL(request.url()).pathname === `/api/threads/${threadId}/stream`;
  context.on("request", (request) => {
    if (isResume(request)) mostAtOnce = Math.max(mostAtOnce, ++open);
  });
  const ended = (request: Request) => {
    if (isResume(request)) open -= 1;
  };
  context.on("requestfinished", ended);
  context.on("requestfailed", ended);

  // The model says a few words, then nothing until it is cut off: the reply runs while the tabs open.
  await sendMessage(page, `[[hang-mid]] keep it running ${uniqueToken()}`);
  await expect(lastReply(page)).toContainText("This reply will break");
  const followers: Page[] = [];
  for (let i = 0; i < 7; i++) {
    const tab = await context.newPage();
    await tab.goto(`/c/${threadId}`);
    await expect(assistantMessages(tab)).toHaveCount(2);
    await expect(lastReply(tab)).toContainText("This reply will break");
    await expect(stopButton(tab)).toBeVisible();
    followers.push(tab);
  }
  expect(mostAtOnce).toBe(1);

  await stopButton(followers.at(-1)!).click();
  for (const tab of [page, ...followers]) await expectReplyFinished(tab);
  expect(mostAtOnce).toBe(1);
});

import { expect, test } from "@playwright/test";
import { notFoundMessage, startThread, threadLink, uniqueToken, userMessages } from "./helpers";

test("another visitor can neither open, fetch nor list someone else's thread", async ({ page, browser, baseURL }) => {
  await page.goto("/");
  const token = uniqueToken();
  const secret = `private matter ${token}`;
  const threadId = await startThread(page, secret);

  // A fresh context has no cookies: a different anonymous identity.
  const stranger = await browser.newContext({ baseURL });
  try {
    const strangerPage = await stranger.newPage();
    await strangerPage.goto(`/c/${threadId}`);
    await expect(notFoundMessage(strangerPage)).toBeVisible();
    await expect(userMessages(strangerPage)).toHaveCount(0);

    const api = await strangerPage.request.get(`/api/threads/${threadId}`);
    expect(api.status()).toBe(404);
    const body = await api.json();
    expect(body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    expect(JSON.stringify(body)).not.toContain(token);

    // The stranger's own thread shows their sidebar works, yet lists only theirs.
    await strangerPage.goto("/");
    const own = `my own chat ${token}`;
    await startThread(strangerPage, own);
    await expect(threadLink(strangerPage, own)).toBeVisible();
    await expect(threadLink(strangerPage, secret)).toHaveCount(0);
  } finally {
    await stranger.close();
  }

  // The owner still has it: the not-found above was about ownership, not a bad URL.
  await page.goto(`/c/${threadId}`);
  await expect(userMessages(page)).toContainText([secret]);
});

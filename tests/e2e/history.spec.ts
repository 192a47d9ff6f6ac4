import { expect, test } from "@playwright/test";
import { echoReply, messageText } from "../../scripts/mock-model-server.mjs";
import { MOCK_MODEL_URL } from "../../scripts/e2e-env.mjs";
import { assistantMessages, expectReplyFinished, lastReply, sendMessage, startThread, uniqueToken, userMessages } from "./helpers";

interface ChatRequestBody {
  messages: { role: string; content: unknown }[];
  stream?: boolean;
}

// The mock answers "I can see U user message(s) and A assistant message(s)",
// so each reply tells which history reached the model.
test("follow-ups send the page's history; after a reload the server loads it from the database", async ({
  page,
  request,
}) => {
  await page.goto("/");
  const token = uniqueToken();
  const first = `first question ${token}`;
  const second = `second question ${token}`;
  const third = `third question ${token}`;

  const threadId = await startThread(page, first);

  const followUp = await sendMessage(page, second);
  expect(followUp.headers()["x-history-source"]).toBe("client");
  expect(followUp.headers()["x-thread-id"]).toBe(threadId);
  await expect(lastReply(page)).toContainText(echoReply(second, 2, 1));
  await expectReplyFinished(page);

  await page.reload();
  await expect(userMessages(page)).toHaveCount(2);
  await expect(userMessages(page)).toContainText([first, second]);
  await expect(assistantMessages(page)).toHaveCount(2);
  await expect(assistantMessages(page)).toContainText([echoReply(first, 1, 0), echoReply(second, 2, 1)]);

  const afterReload = await sendMessage(page, third);
  expect(afterReload.headers()["x-history-source"]).toBe("database");
  expect(afterReload.headers()["x-thread-id"]).toBe(threadId);
  await expect(lastReply(page)).toContainText(echoReply(third, 3, 2));

  // The new message must reach the model once, after the stored history.
  const recorded = (await (await request.get(`${MOCK_MODEL_URL}/__requests`)).json()) as ChatRequestBody[];
  // A turn's request streams; the lesson after it (memory learning) quotes the message too, but does not.
  const lastTurn = recorded.findLast((body) => body.stream === true && body.messages.some((m) => messageText(m.content).includes(third)));
  expect(lastTurn, "a model request carrying the third question").toBeDefined();
  const userTexts = lastTurn!.messages.filter((m) => m.role === "user").map((m) => messageText(m.content));
  expect(userTexts).toEqual([first, second, third]);
});

import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { echoReply, messageText } from "../../scripts/mock-model-server.mjs";
import { MOCK_MODEL_URL } from "../../scripts/e2e-env.mjs";
import { composer, expectReplyFinished, lastReply, regenerateWith, startThread, uniqueToken } from "./helpers";

// The suite's apps offer two models, both the mock's ("Mock model", the
// default, and "Mock model B"): the picker beside the composer chooses the
// one that answers, the reply says which wrote it, and the thread keeps it.
const picker = (page: Page) => page.getByRole("combobox", { name: "Model" });
const replyModel = (page: Page) => lastReply(page).locator("[data-reply-model]");

type RecordedRequest = { model: string; tools?: unknown[]; messages: { role: string; content: unknown }[] };
/** The models the mock was asked to answer with (an agent's call offers tools; a title request none) for the message holding `token`. */
async function modelAskedFor(request: APIRequestContext, token: string): Promise<string[]> {
  const recorded = (await (await request.get(`${MOCK_MODEL_URL}/__requests`)).json()) as RecordedRequest[];
  return recorded
    .filter((body) => Array.isArray(body.tools) && body.messages.at(-1)?.role === "user" && messageText(body.messages.at(-1)!.content).includes(token))
    .map((body) => body.model);
}

test("a model picked before the first message answers it; the thread keeps it after a reload, and a new chat starts from it", async ({ page, request }) => {
  await page.goto("/");
  await expect(picker(page)).toHaveValue("openai-compatible:mock-model");
  await picker(page).selectOption({ label: "Mock model B" });
  const token = uniqueToken();
  const text = `which model answers ${token}`;
  await startThread(page, text);
  await expect(replyModel(page)).toHaveText("Mock model B");
  expect(await modelAskedFor(request, token)).toEqual(["mock-model-b"]);

  await page.reload();
  await expect(lastReply(page)).toContainText(echoReply(text, 1, 0));
  await expect(replyModel(page)).toHaveText("Mock model B");
  await expect(picker(page)).toHaveValue("openai-compatible:mock-model-b");
  // The debug panel names both: the last reply's, and the next message's.
  await page.goto(`${new URL(page.url()).pathname}?debug=true`);
  const panel = page.getByRole("region", { name: "History debug" });
  await expect(panel).toContainText("Last reply's model: openai-compatible:mock-model-b");
  await expect(panel).toContainText("Next message's model: openai-compatible:mock-model-b");
  // And what the last reply's calls spent: Triage answered alone, in one call.
  await expect(panel.getByRole("list", { name: "Model calls of the last reply" })).toContainText(/Triage: 1 call, [\d,]+ tokens/);

  // Back to the default for the next message of this thread: it answers, and the earlier reply still names its own.
  await picker(page).selectOption({ label: "Mock model" });
  const next = uniqueToken();
  await composer(page).fill(`and now ${next}`);
  await composer(page).press("Enter");
  await expect(lastReply(page)).toContainText(next);
  await expectReplyFinished(page);
  await expect(replyModel(page)).toHaveText("Mock model");
  expect(await modelAskedFor(request, next)).toEqual(["mock-model"]);

  await page.getByRole("button", { name: "New chat" }).click();
  await expect(page).toHaveURL("/");
  await expect(picker(page)).toHaveValue("openai-compatible:mock-model");
});

test('"Regenerate with" another model writes a new version by it; the version switcher shows each version\'s model', async ({ page, request }) => {
  await page.goto("/");
  const token = uniqueToken();
  const text = `answer twice ${token} [[nth]]`;
  await startThread(page, text);
  await expect(replyModel(page)).toHaveText("Mock model");

  await regenerateWith(page, "Mock model B");
  await expect(lastReply(page)).toContainText("(answer 2)");
  await expectReplyFinished(page);
  await expect(replyModel(page)).toHaveText("Mock model B");
  await expect(lastReply(page).getByText("2 / 2", { exact: true })).toBeVisible();
  expect(await modelAskedFor(request, token)).toEqual(["mock-model", "mock-model-b"]);
  // The thread goes on with the model its latest reply was written by.
  await expect(picker(page)).toHaveValue("openai-compatible:mock-model-b");

  await lastReply(page).getByRole("button", { name: "Previous version" }).click();
  await expect(lastReply(page).getByText("1 / 2", { exact: true })).toBeVisible();
  await expect(lastReply(page)).toContainText("(answer 1)");
  await expect(replyModel(page)).toHaveText("Mock model");

  // The menu by keyboard: it opens on the reply's own model, arrows move, Escape closes it on the button.
  const regenerate = lastReply(page).getByRole("button", { name: "Regenerate" });
  await regenerate.focus();
  await page.keyboard.press("Enter");
  const menu = page.getByRole("menu", { name: "Regenerate with" });
  await expect(menu.getByRole("menuitem", { name: "Mock model", exact: true })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(menu.getByRole("menuitem", { name: "Mock model B", exact: true })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(regenerate).toBeFocused();
});
